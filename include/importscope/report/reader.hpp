#pragma once

#include "importscope/report/document.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace importscope::report {

/// Limits of what the readers take: a report larger, or nested deeper, is refused.
inline constexpr std::size_t k_max_report_bytes = std::size_t{1} << 30;
inline constexpr std::size_t k_max_report_depth = 64;

/// Parses report text and checks that it is an importscope.report/2 document with the fields the
/// commands rely on, every frame its module records name in its "frames"; a report/1 (frames held
/// whole by each record) is read as the report/2 it would be. Throws Error (exit status 2) naming
/// `name` and what is wrong (a field missing or of the wrong type, for one).
Document parse_report(std::string_view text, const std::string& name);

/// Reads and checks a report file; throws Error (exit status 2).
Document read_report(const std::filesystem::path& path);

} // namespace importscope::report
