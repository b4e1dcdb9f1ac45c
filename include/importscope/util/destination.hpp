#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

namespace importscope {

/// What writing to `path` means: a regular file (or none yet) is replaced atomically, at the real
/// path behind any symlink (a dangling symlink's target is created); a character device or FIFO
/// (/dev/null, a named pipe) is written into; /dev/stdout, /dev/stderr, /dev/fd/N and
/// /proc/self/fd/N, however spelt (`/dev//stdout`, a symlink to one), are the open descriptor
/// itself; a directory, block device, socket or a loop of symlinks is refused (Error).
struct Destination {
    std::filesystem::path path; ///< the real path of a file to replace
    bool write_through = false; ///< a device or FIFO, opened and written into
    int descriptor = -1;        ///< an inherited descriptor to write into
    std::optional<std::pair<std::uint64_t, std::uint64_t>> identity; ///< (st_dev, st_ino) if it exists
};
Destination inspect_destination(const std::filesystem::path& path);

/// The directory a new file at `path` goes into: its parent, or "." for a bare name.
std::filesystem::path directory_of(const std::filesystem::path& path);

/// What an existing regular file at the destination may be for the output to replace it.
enum class Replaces {
    any_file,   ///< a rendering (`report`, `diff`): any file the user names
    report_only ///< a JSON report (`run`, `scan`, `merge`): an empty file or one that begins with '{'
};

/// Throws Error when the output could not be written at `path`, checked before anything runs: a
/// missing directory, one that takes no new file (tried), a destination that is refused, one that
/// is the same file as one of `must_not_be` (the script, module, interpreter or standard input to
/// run, the paths to scan, the reports to read), or, with Replaces::report_only, an existing file
/// that is not a JSON report (a source file, an interpreter).
void check_writable_destination(const std::filesystem::path& path,
                                const std::vector<std::filesystem::path>& must_not_be = {},
                                Replaces replaces = Replaces::any_file);

} // namespace importscope
