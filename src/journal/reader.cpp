#include "importscope/journal/reader.hpp"

#include "importscope/journal/shared_journal.hpp"
#include "importscope/journal/tail.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope::journal {

void JournalParser::feed(std::string_view text)
{
    m_frames.allow(text.size());
    std::size_t start = 0;
    if (m_overlong) { // the rest of a line too long to keep
        const std::size_t newline = text.find('\n');
        if (newline == std::string_view::npos)
            return;
        m_overlong = false;
        start = newline + 1;
        text = text.substr(start);
        start = 0;
    }
    if (!m_partial.empty()) {
        const std::size_t newline = text.find('\n');
        if (newline == std::string_view::npos) {
            if (m_partial.size() + text.size() > k_max_line) {
                drop_overlong_line();
                return;
            }
            m_partial.append(text);
            return;
        }
        m_partial.append(text.substr(0, newline));
        const std::string whole = std::move(m_partial);
        m_partial.clear();
        line(whole);
        start = newline + 1;
    }
    while (start < text.size()) {
        const std::size_t newline = text.find('\n', start);
        if (newline == std::string_view::npos) {
            if (text.size() - start > k_max_line)
                drop_overlong_line();
            else
                m_partial.assign(text.substr(start));
            return;
        }
        line(text.substr(start, newline - start));
        start = newline + 1;
    }
}

void JournalParser::drop_overlong_line()
{
    ++m_lines;
    m_partial.clear();
    m_overlong = true;
    m_into.problems.push_back(
        fmt::format("{}: line {} is longer than {} MiB; skipped", m_source, m_lines, k_max_line >> 20));
}

void JournalParser::line(std::string_view text)
{
    ++m_lines;
    if (!text.empty())
        take([&] { return decode(text, m_frames); });
}

void JournalParser::feed_records(std::string_view records)
{
    m_frames.allow(records.size());
    while (const std::optional<SharedRecord> record = take_record(records)) {
        ++m_lines;
        if (record->form == RecordForm::binary)
            take([&] { return decode_record(record->payload, &m_frames); });
        else if (const auto line = record->line())
            take([&] { return decode(line->substr(0, line->size() - 1), m_frames); });
        else
            take([]() -> Event { throw std::invalid_argument("not a record of the shared journal"); });
    }
}

template <typename Decode>
void JournalParser::take(const Decode& decode_event)
{
    try {
        Event event = decode_event();
        if (m_sink)
            m_sink(std::move(event));
        else
            m_into.events.push_back(std::move(event));
    } catch (const std::invalid_argument& e) {
        // A damaged journal names its first few lines, then how many more: the report stays small.
        if (++m_skipped <= k_max_named_problems)
            m_into.problems.push_back(fmt::format("{}: line {} skipped: {}", m_source, m_lines, e.what()));
        else if (m_skipped == k_max_named_problems + 1)
            m_into.problems.push_back(fmt::format("{}: more lines skipped after line {}; not named one by one",
                                                  m_source, m_lines));
    }
}

void JournalParser::finish()
{
    if (m_partial.empty() && !m_cut_short)
        return;
    m_into.problems.push_back(fmt::format("{}: line {} is incomplete (the process ended while writing it); skipped",
                                          m_source, m_lines + 1));
    m_partial.clear();
    m_cut_short = false;
}

void parse_journal(std::string_view text, std::string_view source, JournalContents& into)
{
    JournalParser parser(std::string(source), into);
    parser.feed(text);
    parser.finish();
}

std::string lines_of_records(std::string_view records)
{
    std::string lines;
    while (const std::optional<SharedRecord> record = take_record(records)) {
        if (const auto line = record->line())
            lines.append(*line);
        else if (record->form == RecordForm::binary)
            try {
                encode_to(lines, decode_record(record->payload, nullptr));
            } catch (const std::invalid_argument&) {
            }
    }
    return lines;
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
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    // A chunk at a time: a huge (or sparse) file is read as the tail polls, never at once.
    std::string text(static_cast<std::size_t>(std::min<std::uint64_t>(size - offset, k_max_read)), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::pread(fd, text.data() + done, text.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; // an error, or the file shrank: what was read is what there is
        done += static_cast<std::size_t>(n);
    }
    const int saved = errno;
    ::close(fd);
    errno = saved;
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
