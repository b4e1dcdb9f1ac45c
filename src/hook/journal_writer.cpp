#include "hook/journal_writer.hpp"

#include "importscope/journal/run_layout.hpp"
#include "importscope/journal/shared_journal.hpp"
#include "importscope/util/clock.hpp"

#include "importscope/journal/problem_channel.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <string>
#include <unistd.h>
#include <utility>

namespace importscope::hook {

std::int64_t JournalWriter::now_ns() noexcept
{
    return monotonic_ns();
}

JournalWriter& JournalWriter::instance()
{
    static JournalWriter writer;
    return writer;
}

void JournalWriter::open(int fd, int pid) noexcept
{
    m_fd = fd;
    m_pid = pid;
    ++m_serial;
}

void JournalWriter::offer_shared(char* region, std::size_t capacity) noexcept
{
    static const bool registered = ::pthread_atfork(nullptr, nullptr, &forget_shared_after_fork) == 0;
    if (!registered)
        return; // a forked child could write into the parent's journal: files only
    m_offer = region;
    m_offer_capacity = capacity;
}

void JournalWriter::forget_shared_after_fork() noexcept
{
    JournalWriter& writer = instance();
    writer.m_offer = nullptr;
    if (writer.m_shared) {
        writer.m_shared = nullptr;
        writer.m_forked_from_shared = true;
    }
}

void JournalWriter::tell_problem(const char* text) noexcept
{
    journal::send_problem(std::getenv(journal::k_env_problems), text);
}

template <typename... Args>
const char* JournalWriter::fmt_problem(const char* format, Args... args) noexcept
{
    static char text[1024];
    (void)std::snprintf(text, sizeof text, format, args...); // NOLINT(cppcoreguidelines-pro-type-vararg)
    return text;
}

bool JournalWriter::start(const std::filesystem::path& run_dir) noexcept
{
    close();
    const int pid = static_cast<int>(::getpid());
    for (int n = 0; n < 1000; ++n) {
        const std::string name = std::string(journal::k_journal_prefix) + std::to_string(pid) + "-" +
                                 std::to_string(n) + journal::k_journal_suffix;
        int fd = ::open((run_dir / name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0) {
            const int err = errno;
            tell_problem(fmt_problem("pid %d: no journal could be created in %s: %s; the process is not traced", pid,
                                     run_dir.c_str(), std::strerror(err)));
            errno = err;
            return false;
        }
        m_name = name;
        m_reported_failure = false;
        m_seq = 0;
        m_import_id = 0;
        if (m_offer) {
            // The file stays empty and keeps the name taken; the lines go to the shared memory.
            ::close(fd);
            fd = -1;
            journal::publish_journal_name(m_offer, name);
            m_shared = std::exchange(m_offer, nullptr);
            m_capacity = m_offer_capacity;
            m_end = journal::SharedJournal::k_header;
        }
        open(fd, pid);
        return true;
    }
    return false;
}

void JournalWriter::close() noexcept
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_shared = nullptr; // the supervisor's memory stays mapped; only this writer lets go of it
    m_forked_from_shared = false;
}

bool JournalWriter::append(const journal::Event& event) noexcept
{
    if (m_fd < 0 && !m_shared)
        return false;
    try {
        m_line.clear();
        journal::encode_to(m_line, event);
    } catch (...) {
        ++m_failed_writes;
        return false;
    }
    return append_line(m_line.data(), m_line.size());
}

bool JournalWriter::append_line(const char* line, std::size_t size) noexcept
{
    if (m_shared) {
        if (size > m_capacity - m_end) {
            journal::mark_journal_full(m_shared); // the report says so
            ++m_failed_writes;
            return false;
        }
        // A signal handler that appends its line in the middle of this one starts at the same
        // place: its line replaces the interrupted one, whose rest the process never writes.
        journal::put_journal_line(m_shared, m_end, {line, size});
        m_end += size;
        return true;
    }
    if (m_fd < 0)
        return false;
    // O_APPEND makes each write land at the end as a unit; loop only on a short write.
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(m_fd, line + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ++m_failed_writes;
            if (!m_reported_failure) {
                m_reported_failure = true;
                tell_problem(fmt_problem("pid %d: journal %s: a write failed (%s); its later events may be lost",
                                         m_pid, m_name.c_str(), n < 0 ? std::strerror(errno) : "nothing written"));
            }
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace importscope::hook
