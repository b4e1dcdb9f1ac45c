// The tolerant reader: a journal's records as they come, each decoded or named as skipped.

#include "importscope/journal/reader.hpp"

#include "importscope/journal/tail.hpp"
#include "importscope/util/unique_fd.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope::journal {

void JournalParser::feed(std::string_view bytes)
{
    m_frames.allow(bytes.size());
    if (m_state == State::skipped)
        return;
    if (m_partial.empty()) { // read where they are; only the start of a record not yet whole is kept
        parse(bytes);
        if (m_state != State::skipped)
            m_partial.assign(bytes);
        return;
    }
    m_partial.append(bytes); // after the start of a header or record that the last bytes left
    std::string_view rest = m_partial;
    parse(rest);
    if (m_state == State::skipped)
        m_partial.clear();
    else
        m_partial.erase(0, m_partial.size() - rest.size());
}

void JournalParser::parse(std::string_view& bytes)
{
    if (m_state == State::header && !header(bytes))
        return;
    records(bytes);
}

bool JournalParser::header(std::string_view& bytes)
{
    std::uint32_t version = 0;
    switch (check_file_header(bytes, version)) {
    case HeaderCheck::ok:
        bytes.remove_prefix(k_file_header_size);
        m_offset += k_file_header_size;
        m_state = State::records;
        return true;
    case HeaderCheck::incomplete:
        return false;
    case HeaderCheck::not_a_journal:
        skip_rest(fmt::format("{}: not an importscope journal (it does not start with \"{}\"); skipped", m_source,
                              k_file_magic.substr(0, k_file_magic.size() - 1)));
        return false;
    case HeaderCheck::other_version:
        skip_rest(fmt::format("{}: a journal of format version {}, and this importscope reads version {}; skipped",
                              m_source, version, k_file_version));
        return false;
    }
    return false;
}

void JournalParser::records(std::string_view& bytes)
{
    Record next;
    for (;;) {
        const std::size_t before = bytes.size();
        switch (take_record(bytes, next)) {
        case Take::record:
            m_offset += before - bytes.size();
            record(next);
            continue;
        case Take::incomplete:
            return;
        case Take::damaged:
            skip_rest(fmt::format("{}: the bytes after record {} (from byte {}) are not a journal record; the rest of "
                                  "the journal is skipped",
                                  m_source, m_records, m_offset));
            return;
        }
    }
}

void JournalParser::record(const Record& record)
{
    ++m_records;
    if (record.form == RecordForm::binary)
        take([&] { return decode_record(record.payload, &m_frames, m_known); });
    else
        take([]() -> Event { throw std::invalid_argument("a record of an unknown form"); });
}

void JournalParser::feed_records(std::string_view records)
{
    m_frames.allow(records.size());
    if (m_state == State::skipped)
        return;
    m_state = State::records; // a shared journal has no header
    this->records(records);
}

void JournalParser::skip_rest(const std::string& problem)
{
    m_into.problems.push_back(problem);
    m_state = State::skipped;
}

template <typename Decode>
void JournalParser::take(const Decode& decode_event)
{
    try {
        Event event = decode_event();
        if (m_sink)
            m_sink(std::move(event), m_frames);
        else
            m_into.events.push_back(std::move(event));
    } catch (const std::invalid_argument& e) {
        // A damaged journal names its first few records, then how many more: the report stays small.
        if (++m_skipped <= k_max_named_problems)
            m_into.problems.push_back(fmt::format("{}: record {} skipped: {}", m_source, m_records, e.what()));
        else if (m_skipped == k_max_named_problems + 1)
            m_into.problems.push_back(fmt::format("{}: more records skipped after record {}; not named one by one",
                                                  m_source, m_records));
    }
}

void JournalParser::finish()
{
    if (m_state == State::header && !m_partial.empty())
        m_into.problems.push_back(fmt::format("{}: the journal's header is incomplete ({} bytes; the process ended "
                                              "while writing it); skipped",
                                              m_source, m_partial.size()));
    else if (m_state == State::records && (!m_partial.empty() || m_cut_short))
        m_into.problems.push_back(fmt::format(
            "{}: record {} is incomplete (the process ended while writing it); skipped", m_source, m_records + 1));
    m_partial.clear();
    m_cut_short = false;
}

void parse_journal(std::string_view bytes, std::string_view source, JournalContents& into)
{
    JournalParser parser(std::string(source), into);
    parser.feed(bytes);
    parser.finish();
}

std::optional<std::string> read_from(const std::filesystem::path& path, std::uint64_t offset)
{
    // Raw calls: the journal tail asks every 20 ms, mostly to learn that nothing changed.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return std::nullopt;
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size <= offset)
        return std::string();
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
        return std::nullopt;
    // A chunk at a time: a huge (or sparse) file is read as the tail polls, never at once.
    std::string text(static_cast<std::size_t>(std::min<std::uint64_t>(size - offset, k_max_read)), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::pread(fd.get(), text.data() + done, text.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; // an error, or the file shrank: what was read is what there is
        done += static_cast<std::size_t>(n);
    }
    text.resize(done);
    return text;
}

void read_journal(const std::filesystem::path& path, JournalContents& into)
{
    if (into.source.empty())
        into.source = path.filename().string();
    JournalParser parser(path.filename().string(), into);
    for (std::uint64_t offset = 0;;) {
        const std::optional<std::string> text = read_from(path, offset);
        if (!text) {
            into.problems.push_back(fmt::format("{}: cannot read journal: {}", path.string(), std::strerror(errno)));
            return;
        }
        if (text->empty())
            break;
        if (offset + text->size() > k_max_journal_bytes) {
            into.problems.push_back(journal_too_large(path.filename().string()));
            break;
        }
        offset += text->size();
        into.bytes += text->size();
        parser.feed(*text);
    }
    parser.finish();
}

std::string journal_too_large(const std::string& name)
{
    return fmt::format("{}: the journal is larger than {} GiB; the rest is not read", name, k_max_journal_bytes >> 30);
}

std::vector<JournalContents> read_run_journals(const std::filesystem::path& run_dir)
{
    return JournalTail(run_dir).finish(); // a run's journals, followed from the start to the end at once
}

} // namespace importscope::journal
