#pragma once

// Opening a file that someone else controls for reading.

#include "importscope/util/unique_fd.hpp"

#include <cstddef>
#include <fcntl.h>
#include <optional>

namespace importscope {

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

} // namespace importscope
