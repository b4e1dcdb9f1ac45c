#pragma once

// The journal's one form, in a file and in the memory the main process shares with the
// supervisor: records, each its size, a byte for its form and its payload (an event as
// encode_record_to() writes it), padded to a multiple of 4 bytes. A journal file starts with a
// versioned header (as ninja's .ninja_deps: a magic line, then the format's version).

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace importscope::journal {

/// A journal file's first line; the format's version follows it (32 bits, this machine's order).
inline constexpr std::string_view k_file_magic = "# importscope journal\n";
inline constexpr std::size_t k_file_header_size = k_file_magic.size() + sizeof(std::uint32_t);
/// The version of the file's form and of its records: 4, whose stacks' frames are laid out as event
/// format 3 says (event.hpp); 3 was the first in records, 1 and 2 lines of JSON. A file of another
/// version is named and skipped.
inline constexpr std::uint32_t k_file_version = 4;

/// The header of a journal file of this build's format.
std::array<char, k_file_header_size> file_header() noexcept;

/// What the start of a journal file says.
enum class HeaderCheck {
    ok,            ///< this build's format
    incomplete,    ///< fewer bytes than a header, which match it so far
    not_a_journal, ///< no importscope journal's magic line
    other_version, ///< a journal of another format's version
};
/// Checks the start of a file; `version` gets the version it names, when it names one.
HeaderCheck check_file_header(std::string_view bytes, std::uint32_t& version) noexcept;

/// How a record holds its event: the one form so far, its byte a check that the frame is a
/// record's (a reader skips a record of another form).
enum class RecordForm : char {
    binary = 'B', ///< encode_record_to()'s form (event.hpp)
};

/// A record's frame, before its payload: its size (32 bits, of what follows it), then its form.
inline constexpr std::size_t k_size_bytes = sizeof(std::uint32_t);
inline constexpr std::size_t k_record_frame = k_size_bytes + 1;
/// No record is larger; in a file, a size past it means the bytes are no record.
inline constexpr std::size_t k_max_record = std::size_t{64} << 20;

/// The bytes a record of `size` (its size field: the form byte and the payload) takes, padding included.
constexpr std::size_t framed_size(std::size_t size)
{
    return (k_size_bytes + size + k_size_bytes - 1) & ~(k_size_bytes - 1);
}

/// Starts a record in `buffer` (a std::string, or a FixedBuffer for a signal handler): room for
/// its frame, which finish_record() fills once the payload is appended.
template <typename Buffer>
void start_record(Buffer& buffer) noexcept
{
    buffer.clear();
    buffer.resize(k_record_frame);
}

/// Writes the frame of the record that start_record() began, and its padding: `buffer` then
/// holds the record as a journal holds it.
template <typename Buffer>
void finish_record(Buffer& buffer) noexcept
{
    const auto size = static_cast<std::uint32_t>(buffer.size() - k_size_bytes);
    buffer.resize(framed_size(size));
    std::memcpy(buffer.data(), &size, sizeof size);
    buffer.data()[k_size_bytes] = static_cast<char>(RecordForm::binary);
}

/// `payload` as a whole record (for tests, and for journals made outside a traced process).
std::string framed_record(std::string_view payload);

/// One record of a journal.
struct Record {
    RecordForm form = RecordForm::binary;
    std::string_view payload;
};

/// What take_record() found at the start of the bytes.
enum class Take {
    record,     ///< a whole record, now dropped from the bytes
    incomplete, ///< the start of one, or nothing: more bytes are needed
    damaged,    ///< no record: a size of zero or past k_max_record
};

/// Takes the first record of `bytes` (records, as a journal holds them after its header).
Take take_record(std::string_view& bytes, Record& record) noexcept;

/// The journal file that holds `records` (whole records, as SharedJournal::records() gives them):
/// the header, then the records as they are.
std::string journal_file_of(std::string_view records);

} // namespace importscope::journal
