#include "hook/journal_writer.hpp"

#include "importscope/journal/record_format.hpp"
#include "importscope/journal/run_layout.hpp"
#include "importscope/util/clock.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <pthread.h>
#include <unistd.h>
#include <utility>

namespace importscope::hook {

namespace {

/// A new, empty journal file in `run_dir`, the first journal-<pid>-<n> name free; sets `path`.
UniqueFd create_journal_file(const std::filesystem::path& run_dir, int pid, std::string& path)
{
    for (int n = 0; n < 1000; ++n) {
        path = (run_dir / fmt::format("{}{}-{}{}", journal::k_journal_prefix, pid, n, journal::k_journal_suffix)).string();
        UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600));
        if (fd || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return UniqueFd();
}

} // namespace

std::int64_t JournalWriter::now_ns() noexcept
{
    return monotonic_ns();
}

JournalWriter& JournalWriter::instance()
{
    static JournalWriter writer;
    return writer;
}

void JournalWriter::offer_shared(journal::SharedJournalWriter shared) noexcept
{
    static const bool registered = ::pthread_atfork(nullptr, nullptr, &after_fork) == 0;
    if (!registered)
        return; // a forked child could write into the parent's journal: files only
    m_offer = shared;
}

void JournalWriter::after_fork() noexcept
{
    JournalWriter& writer = instance();
    writer.m_offer = {};
    if (writer.m_sink)
        writer.m_sink->after_fork();
}

bool JournalWriter::start(const std::filesystem::path& run_dir) noexcept
{
    close();
    const int pid = static_cast<int>(::getpid());
    try {
        std::string path;
        UniqueFd fd = create_journal_file(run_dir, pid, path);
        if (!fd) {
            const int err = errno;
            tell_problem(m_problem.format("pid {}: no journal could be created in {}: {}; the process is not traced",
                                          pid, run_dir.string(), std::strerror(err)));
            errno = err;
            return false;
        }
        if (m_offer) {
            // The file stays empty and keeps the name taken; the events go to the shared memory.
            m_offer.publish_name(std::filesystem::path(path).filename().string());
            write_to(std::make_unique<SharedMemorySink>(std::exchange(m_offer, {})), pid);
            return true;
        }
        write_to(std::make_unique<FileSink>(std::move(fd), std::move(path), pid), pid);
        const auto header = journal::file_header();
        if (write({header.data(), header.size()}))
            return true;
        const int err = errno; // the sink told the supervisor why
        close();
        errno = err;
        return false;
    } catch (const std::exception&) { // no memory for the name or the sink
        close();
        errno = ENOMEM;
        return false;
    }
}

void JournalWriter::write_to(std::unique_ptr<JournalSink> sink, int pid) noexcept
{
    m_sink = std::move(sink);
    m_pid = pid;
    m_seq = 0;
    m_import_id = 0;
    ++m_serial;
}

void JournalWriter::close() noexcept
{
    m_sink.reset(); // a shared journal's memory stays mapped; only this writer lets go of it
}

bool JournalWriter::append(const journal::Event& event) noexcept
{
    return append_any(event);
}

bool JournalWriter::append(const journal::ImportBegin& event) noexcept
{
    return append_any(event);
}

template <typename AnyEvent>
bool JournalWriter::append_any(const AnyEvent& event) noexcept
{
    if (!m_sink)
        return false;
    try {
        journal::start_record(m_record);
        journal::encode_record_to(m_record, event);
        journal::finish_record(m_record);
    } catch (...) {
        ++m_failed_writes;
        return false;
    }
    const bool written = write(m_record);
    if (m_sink->take_reopened()) {
        journal::Note note;
        note.text = "the target closed or took the journal's descriptor; importscope opened the journal again "
                    "before writing, and lost nothing";
        append(stamp(note));
    }
    return written;
}

bool JournalWriter::append_end(std::string_view how, int code) noexcept
{
    if (!m_sink)
        return false;
    journal::EndRecord record;
    journal::encode_end_record(record, {m_pid, next_seq(), monotonic_ns(), wall_ns(), how, code});
    return !record.overflowed() && write(record.view());
}

bool JournalWriter::write(std::string_view record) noexcept
{
    if (m_sink->write(record))
        return true;
    ++m_failed_writes; // a file says why to the supervisor; a full shared journal, its header
    return false;
}

} // namespace importscope::hook
