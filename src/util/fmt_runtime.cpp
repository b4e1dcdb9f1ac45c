// fmt's compiled functions, built into importscope from fmt's own headers, so that what runs in
// a traced process needs no libfmt.so (and through it no libstdc++.so): see
// IMPORTSCOPE_STATIC_RUNTIME in the top CMakeLists.txt. format-inl.h holds their definitions;
// without FMT_HEADER_ONLY they are ordinary functions, compiled here once. The templates that
// format.h declares `extern` are instantiated here, as fmt's own library does for fmt 9.

#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

} // namespace detail
FMT_END_NAMESPACE
