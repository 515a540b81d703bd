#include "tracesql/error.h"

namespace tracesql {

void ThrowError(fmt::string_view format, fmt::format_args args) {
  throw Error(fmt::vformat(format, args));
}

}  // namespace tracesql
