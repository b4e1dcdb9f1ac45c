#pragma once

#include <filesystem>
#include <string_view>

namespace importscope {

/// Writes `content` to `path` so that readers see either the old file or the complete new one:
/// a temporary file in the same directory, fsync, then rename. Throws Error on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Throws Error when a file could not be created at `path` (missing or unwritable directory).
void check_writable_destination(const std::filesystem::path& path);

} // namespace importscope
