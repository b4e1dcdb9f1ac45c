#pragma once

// Opening and reading a file that someone else controls.

#include "importscope/util/unique_fd.hpp"

#include <cstddef>
#include <fcntl.h>
#include <optional>
#include <string>

namespace importscope {

/// The largest extension module file read after a run (hashed, searched for its binding library's
/// marks): the largest (CUDA kernels and all) are hundreds of megabytes, and a sparse file of a
/// terabyte put where one was must not be read whole.
inline constexpr std::size_t k_largest_extension_file = std::size_t{4} << 30;

/// A regular file open for reading, and its size when it was opened.
struct RegularFile {
    UniqueFd fd;
    std::size_t size = 0;
};

/// `path` (relative to the directory descriptor `directory`, or AT_FDCWD) opened for reading, when
/// it is a regular file; none when it cannot be opened or is anything else. The open does not
/// block: a FIFO put where a file was expected (a target can replace what it loaded) is passed
/// over, never waited on for a writer. Every call is async-signal-safe.
std::optional<RegularFile> open_regular_file(const char* path, int directory = AT_FDCWD);

/// The whole text of the regular file `path` (as open_regular_file() finds it), read in as few
/// calls as its size allows; none when it cannot be opened, is no regular file, or holds more
/// than `limit` bytes (a sparse file of a terabyte costs its maker nothing).
std::optional<std::string> read_regular_file(const char* path, std::size_t limit, int directory = AT_FDCWD);

/// Whether `path` is a regular file (after symlinks), without opening it.
bool is_regular_file(const std::string& path);

} // namespace importscope
