// Linked only into build/portable/tracesql (cmake/Portable.cmake): fmt's out-of-line functions
// (vformat, throw_format_error, ...), which the program otherwise takes from libfmt.so. Debian ships
// fmt without a static archive; without FMT_HEADER_ONLY, <fmt/format-inl.h> defines those functions
// as ordinary external ones, as fmt's own src/format.cc does when it builds libfmt, and the templates
// that <fmt/format.h> declares `extern template` are instantiated here as there.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
}  // namespace detail
FMT_END_NAMESPACE
