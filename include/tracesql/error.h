// Errors: one exception type carrying a complete, user-facing message (file and place included).
#ifndef TRACESQL_ERROR_H_
#define TRACESQL_ERROR_H_

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace tracesql {

// An error that ends the current command. what() is the whole message, ready for stderr.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

[[noreturn]] void ThrowError(fmt::string_view format, fmt::format_args args);

// Errorf("{}: byte {}: bad value", path, offset) throws tracesql::Error.
template <typename... T>
[[noreturn]] void Errorf(fmt::format_string<T...> format, T&&... args) {
  ThrowError(format, fmt::make_format_args(args...));
}

}  // namespace tracesql

#endif  // TRACESQL_ERROR_H_
