#include "hook/journal_sinks.hpp"

#include "importscope/journal/problem_channel.hpp"
#include "importscope/journal/run_layout.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope::hook {

void tell_problem(const char* text) noexcept
{
    journal::send_problem(std::getenv(journal::k_env_problems), text);
}

UniqueFd out_of_the_way(UniqueFd fd) noexcept
{
    rlimit files{};
    const int limit = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                          ? static_cast<int>(std::min<rlim_t>(files.rlim_cur, 65536))
                          : 1024;
    UniqueFd high(::fcntl(fd.get(), F_DUPFD_CLOEXEC, std::max(limit - 64, 3)));
    return high ? std::move(high) : std::move(fd);
}

FileSink::FileSink(UniqueFd fd, std::string path, int pid) noexcept
    : m_fd(out_of_the_way(std::move(fd))), m_path(std::move(path)), m_pid(pid)
{
    remember_identity();
}

void FileSink::remember_identity() noexcept
{
    struct stat st {};
    m_identity = m_fd && ::fstat(m_fd.get(), &st) == 0 ? std::make_pair(st.st_dev, st.st_ino)
                                                        : std::make_pair(dev_t{}, ino_t{});
}

bool FileSink::still_ours() noexcept
{
    struct stat st {};
    if (m_fd && ::fstat(m_fd.get(), &st) == 0 && st.st_dev == m_identity.first && st.st_ino == m_identity.second)
        return true;
    if (!m_fd)
        return false; // lost already, and said so
    // The target closed the descriptor (closerange) and may have opened a file of its own under
    // the number: never write there, and never close it. The journal is opened again by its path.
    (void)m_fd.release();
    UniqueFd again(::open(m_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    if (!again) {
        tell_problem(m_problem.format("pid {}: journal {}: its descriptor was closed or taken by the target, and the "
                                      "file cannot be opened again ({}); its later events are lost",
                                      m_pid, m_path, std::strerror(errno)));
        return false;
    }
    m_fd = out_of_the_way(std::move(again));
    m_reopened = true; // said in a note once this record is written: nothing was lost
    remember_identity();
    return true;
}

bool FileSink::write(std::string_view record) noexcept
{
    if (!still_ours())
        return false;
    // O_APPEND makes each write land at the end as a unit; loop only on a short write.
    std::size_t done = 0;
    while (done < record.size()) {
        const ssize_t n = ::write(m_fd.get(), record.data() + done, record.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            report_failure(n < 0 ? std::strerror(errno) : "nothing written");
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

void FileSink::report_failure(const char* why) noexcept
{
    if (std::exchange(m_reported_failure, true))
        return;
    tell_problem(m_problem.format("pid {}: journal {}: a write failed ({}); its later events may be lost", m_pid,
                                  m_path, why));
}

bool SharedMemorySink::write(std::string_view record) noexcept
{
    return m_memory.append(record);
}

} // namespace importscope::hook
