#include "importscope/journal/tail.hpp"

#include "importscope/journal/run_layout.hpp"
#include "importscope/util/clock.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace importscope::journal {

JournalTail::FileState& JournalTail::state_of(const std::string& name)
{
    FileState& state = m_files[name];
    if (!state.parser) {
        state.contents.source = name;
        JournalParser::EventSink sink;
        if (m_sink)
            sink = [this, name](Event&& e, const FrameTable& frames) { m_sink(name, std::move(e), frames); };
        state.parser = std::make_unique<JournalParser>(name, state.contents, std::move(sink), m_known);
    }
    return state;
}

bool JournalTail::read(const std::filesystem::path& path)
{
    FileState& state = state_of(path.filename().string());
    if (state.shared || state.too_large || state.parser->skips_the_rest())
        return true; // the name's records are in the shared journal (the file stays empty), or not read
    const std::optional<std::string> chunk = read_from(path, state.offset); // what the file gained
    if (!chunk)
        return false;
    if (state.offset + chunk->size() > k_max_journal_bytes) {
        state.too_large = true;
        state.contents.problems.push_back(journal_too_large(state.contents.source));
        return true;
    }
    state.offset += chunk->size();
    state.contents.bytes += chunk->size();
    m_bytes_read += chunk->size();
    state.parser->feed(*chunk);
    return true;
}

void JournalTail::read_shared(bool to_end)
{
    if (!m_shared)
        return;
    const std::string name = m_shared->name();
    if (name.empty())
        return; // the worker has not started its journal yet
    FileState& state = state_of(name);
    if (!state.shared) {
        state.shared = true;
        state.offset = SharedJournal::k_header;
    }
    const std::string_view chunk = m_shared->records(state.offset);
    state.offset += chunk.size();
    state.contents.bytes += chunk.size();
    m_bytes_read += chunk.size();
    state.parser->feed_records(chunk);
    if (to_end && m_shared->cut_short(state.offset))
        state.parser->cut_short();
    if (to_end && m_shared->overflowed())
        state.contents.problems.push_back(fmt::format(
            "{}: the journal filled its {} MiB of shared memory; the process's later events were lost", name,
            m_shared->capacity() >> 20));
}

namespace {

/// A directory modified this recently is listed again at each poll: a file made in the same tick
/// of the file system's clock as the last listing leaves the time as it was.
constexpr std::int64_t k_settled_ns = 100'000'000;
/// The most polls between two listings however settled the time looks (a file system whose clock
/// ticks in seconds).
constexpr unsigned k_most_polls_unlisted = 10;

std::optional<std::int64_t> modified_ns(const std::filesystem::path& directory)
{
    struct stat st {};
    if (::stat(directory.c_str(), &st) != 0)
        return std::nullopt;
    return nanoseconds_of(st.st_mtim);
}

} // namespace

const std::vector<std::filesystem::path>& JournalTail::journals_now()
{
    // A stat() in place of a listing while no journal came: a run's child processes start its
    // journals early or not at all, and the tail polls every 20 ms.
    const std::optional<std::int64_t> mtime = modified_ns(m_run_dir);
    const bool unchanged = mtime && mtime == m_listed_mtime_ns && wall_ns() - *mtime >= k_settled_ns &&
                           m_polls_since_listing < k_most_polls_unlisted;
    if (unchanged) {
        ++m_polls_since_listing;
        return m_listed;
    }
    m_listed = list_journals(m_run_dir);
    m_listed_mtime_ns = mtime;
    m_polls_since_listing = 0;
    return m_listed;
}

void JournalTail::poll()
{
    read_shared(false);
    for (const auto& path : journals_now())
        read(path); // one that cannot be read now is tried again at the next poll
}

std::vector<JournalContents> JournalTail::finish()
{
    read_shared(true);
    for (const auto& path : list_journals(m_run_dir)) {
        FileState& state = state_of(path.filename().string());
        for (std::uint64_t before = ~std::uint64_t{0}; before != state.offset;) { // a chunk at a time, to the end
            before = state.offset;
            if (!read(path)) {
                state.contents.problems.push_back(
                    fmt::format("{}: cannot read journal: {}", path.string(), std::strerror(errno)));
                break;
            }
        }
    }
    std::vector<JournalContents> journals;
    journals.reserve(m_files.size());
    for (auto& [name, state] : m_files) {
        state.parser->finish();
        journals.push_back(std::move(state.contents));
    }
    // The parsers, with the frame tables of every stack seen, go with the tail: freeing them here
    // would add their tens of thousands of blocks to the time from the target's end to the report.
    return journals;
}

} // namespace importscope::journal
