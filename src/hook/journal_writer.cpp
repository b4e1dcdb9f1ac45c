#include "hook/journal_writer.hpp"

#include "importscope/journal/run_layout.hpp"
#include "importscope/journal/shared_journal.hpp"
#include "importscope/util/clock.hpp"

#include "importscope/journal/problem_channel.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
    m_fd = fd >= 0 ? out_of_the_way(fd) : fd;
    m_pid = pid;
    ++m_serial;
    struct stat st {};
    m_identity = m_fd >= 0 && ::fstat(m_fd, &st) == 0 ? std::make_pair(st.st_dev, st.st_ino) : std::make_pair(dev_t{}, ino_t{});
}

int JournalWriter::out_of_the_way(int fd) noexcept
{
    // High, where a target's own files seldom go (they take the lowest free number).
    rlimit files{};
    const int limit = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                          ? static_cast<int>(std::min<rlim_t>(files.rlim_cur, 65536))
                          : 1024;
    const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, std::max(limit - 64, 3));
    if (high < 0)
        return fd;
    ::close(fd);
    return high;
}

bool JournalWriter::still_ours() noexcept
{
    struct stat st {};
    if (::fstat(m_fd, &st) == 0 && st.st_dev == m_identity.first && st.st_ino == m_identity.second)
        return true;
    // The target closed the descriptor (closerange) and may have opened a file of its own under
    // the number: never write there. The journal is opened again by its name.
    const int fd = m_path.empty() ? -1 : ::open(m_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        tell_problem(fmt_problem("pid %d: journal %s: its descriptor was closed or taken by the target, and the "
                                 "file cannot be opened again (%s); its later events are lost",
                                 m_pid, m_name.c_str(), std::strerror(errno)));
        m_fd = -1;
        return false;
    }
    m_fd = out_of_the_way(fd);
    m_reopened = true; // said in a note once this line is written: nothing was lost
    if (::fstat(m_fd, &st) == 0)
        m_identity = {st.st_dev, st.st_ino};
    return true;
}

void JournalWriter::offer_shared(journal::SharedJournalWriter shared) noexcept
{
    static const bool registered = ::pthread_atfork(nullptr, nullptr, &forget_shared_after_fork) == 0;
    if (!registered)
        return; // a forked child could write into the parent's journal: files only
    m_offer = shared;
}

void JournalWriter::forget_shared_after_fork() noexcept
{
    JournalWriter& writer = instance();
    writer.m_offer = {};
    if (writer.m_shared) {
        writer.m_shared = {};
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
        m_path = (run_dir / name).string();
        m_reported_failure = false;
        m_seq = 0;
        m_import_id = 0;
        if (m_offer) {
            // The file stays empty and keeps the name taken; the events go to the shared memory.
            ::close(fd);
            fd = -1;
            m_offer.publish_name(name);
            m_shared = std::exchange(m_offer, {});
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
    m_shared = {}; // the supervisor's memory stays mapped; only this writer lets go of it
    m_forked_from_shared = false;
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
    if (m_fd < 0 && !m_shared)
        return false;
    try {
        m_line.clear();
        m_shared ? journal::encode_record_to(m_line, event) : journal::encode_to(m_line, event);
    } catch (...) {
        ++m_failed_writes;
        return false;
    }
    const bool written = m_shared ? append_record(journal::RecordForm::binary, m_line)
                                  : append_line(m_line.data(), m_line.size());
    if (m_reopened) {
        m_reopened = false;
        journal::Note note;
        note.text = "the target closed or took the journal's descriptor; importscope opened the journal again "
                    "before writing, and lost nothing";
        append(stamp(note));
    }
    return written;
}

bool JournalWriter::append_record(journal::RecordForm form, std::string_view payload) noexcept
{
    if (m_shared.append(form, payload))
        return true;
    ++m_failed_writes; // the report says the journal filled up
    return false;
}

bool JournalWriter::append_line(const char* line, std::size_t size) noexcept
{
    if (m_shared)
        return append_record(journal::RecordForm::line, {line, size});
    if (m_fd < 0 || !still_ours())
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
