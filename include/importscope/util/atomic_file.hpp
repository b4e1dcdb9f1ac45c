#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace importscope {

/// Takes a text piece by piece.
using TextSink = std::function<void(std::string_view)>;

/// Writes `content` to `path` so that readers see either the old file or the complete new one:
/// a temporary file in the same directory, then rename. Throws Error on failure. There is no fsync:
/// this guards against a process that dies (importscope's, or a reader's view of a half-written
/// report), not against a power cut, after which a report is made again by running again; an
/// fsync of a large report cost a run more than anything else after the target ended (6 ms for
/// 8.5 MB on ext4).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// The same for content made piece by piece: `produce` hands each piece to the sink it is given,
/// so that a large file never has to be held in memory whole. If `produce` throws, the old file
/// stays and the exception passes on.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(const TextSink&)>& produce);

/// Throws Error when a file could not be created at `path` (missing or unwritable directory).
void check_writable_destination(const std::filesystem::path& path);

} // namespace importscope
