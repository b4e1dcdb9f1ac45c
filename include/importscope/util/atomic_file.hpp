#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace importscope {

/// Takes a text piece by piece.
using TextSink = std::function<void(std::string_view)>;

/// Writes `content` to `path` so that readers see either the old file or the complete new one:
/// a temporary file in the same directory, fsync, then rename. Throws Error on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// The same for content made piece by piece: `produce` hands each piece to the sink it is given,
/// so that a large file never has to be held in memory whole. If `produce` throws, the old file
/// stays and the exception passes on.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(const TextSink&)>& produce);

/// Throws Error when a file could not be created at `path` (missing or unwritable directory).
void check_writable_destination(const std::filesystem::path& path);

} // namespace importscope
