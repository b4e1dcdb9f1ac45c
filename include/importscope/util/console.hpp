#pragma once

#include <string_view>

namespace importscope {

/// Writes all of `data` to `fd`, again after a short write or EINTR; false on an error (errno
/// says which) or when nothing could be written.
bool write_all(int fd, std::string_view data) noexcept;

/// Writes `text` to standard error as it is, whatever state that is in: closed (2>&-), full
/// (2>/dev/full) or a pipe whose reader is gone. importscope's own messages never end it.
void print_to_stderr(std::string_view text) noexcept;

/// Writes `text` to standard output (buffered). Throws Error when it cannot: a closed or full
/// standard output, or a pipe whose reader is gone, must not pass for success.
void write_to_stdout(std::string_view text);
/// Flushes standard output; throws Error as write_to_stdout does.
void flush_stdout();

/// Opens /dev/null on whichever of descriptors 0, 1 and 2 is closed, so that no file importscope
/// opens later takes their place; returns which were closed (bit N for descriptor N).
unsigned ensure_standard_descriptors() noexcept;

/// Whether text for stderr may be coloured: it is a terminal and NO_COLOR is unset or empty.
bool stderr_wants_color() noexcept;

} // namespace importscope
