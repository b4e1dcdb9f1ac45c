#pragma once

// Output files that readers see whole or not at all: written at once (write_file_atomically) or piece
// by piece (ReplacingFile: a temporary beside the file, put in place or removed), and FileSnapshot,
// what a report's path held when the run began.

#include "importscope/util/destination.hpp"

#include <filesystem>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace importscope {

/// Takes a text piece by piece.
using TextSink = std::function<void(std::string_view)>;

/// What a regular file's path held at one moment: nothing, or a file of that identity, time and
/// size. A report's path is looked at when the run begins, so that a report another run put there
/// since (two ranks given the same -o) is told apart from the one this run may replace.
struct FileSnapshot {
    bool exists = false;
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::int64_t modified_ns = 0;
    std::int64_t size = 0;
    bool operator==(const FileSnapshot&) const = default;
};

/// The snapshot of the regular file a report at `path` would replace (behind any symlink); nullopt
/// for a destination that is written into (a device, a FIFO, a descriptor), which nothing replaces.
std::optional<FileSnapshot> snapshot_of_destination(const std::filesystem::path& path);

/// Writes `content` to `path` so that readers see either the old file or the complete new one:
/// a temporary file in the same directory, then rename; a device, FIFO or descriptor is written
/// into instead (inspect_destination). Throws Error on failure. There is no fsync:
/// this guards against a process that dies (importscope's, or a reader's view of a half-written
/// report), not against a power cut, after which a report is made again by running again; an
/// fsync of a large report cost a run more than anything else after the target ended (6 ms for
/// 8.5 MB on ext4).
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// How long a FIFO named as the destination is waited for to have a reader, by default.
inline constexpr double k_reader_wait_s = 10.0;

/// The same for content made piece by piece: `produce` hands each piece to the sink it is given,
/// so that a large file never has to be held in memory whole. If `produce` throws, the old file
/// stays and the exception passes on. A FIFO is opened without blocking, and waited for to have a
/// reader at most `reader_wait_s` seconds; then Error.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(const TextSink&)>& produce,
                           double reader_wait_s = k_reader_wait_s);

/// The same, but a regular file that is no longer what `before` saw (another writer put its own
/// there since) is kept: the content goes beside it instead, as `NAME.PID.EXT` (or with a number
/// after the pid), never over another file. Returns the path written.
std::filesystem::path write_file_beside_others(const std::filesystem::path& path,
                                               const std::function<void(const TextSink&)>& produce,
                                               double reader_wait_s, const std::optional<FileSnapshot>& before);

/// A regular file being replaced atomically, piece by piece: a temporary file beside `path`
/// (mode 0666 less the umask), put in place by commit(); removed if it is dropped before (a report
/// begun and then written again). Throws Error when the temporary file cannot be made.
class ReplacingFile {
public:
    explicit ReplacingFile(std::filesystem::path path);
    ~ReplacingFile();
    ReplacingFile(const ReplacingFile&) = delete;
    ReplacingFile& operator=(const ReplacingFile&) = delete;

    /// Writes a piece; the first failure is kept for commit().
    const TextSink& sink() const { return m_sink; }

    /// Whether every piece so far was written.
    bool written() const { return m_error == 0; }

    /// Puts the file in place of `path`; throws Error if a write, the close or the rename failed.
    void commit();

    /// Puts the file in place of `path` if `path` still holds what `before` saw, else beside it
    /// (write_file_beside_others); returns the path it went to. Throws Error as commit() does.
    std::filesystem::path commit_unless_replaced(const FileSnapshot& before);

private:
    /// Closes the temporary file: 0, or the errno of the first failed write or of the close.
    int close_written();

    std::filesystem::path m_path;
    std::string m_temp;
    int m_fd = -1;
    int m_error = 0; ///< the errno of the first failure
    bool m_committed = false;
    TextSink m_sink;
};

} // namespace importscope
