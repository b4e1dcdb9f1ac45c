#include "hook/journal_writer.hpp"

#include "importscope/journal/run_layout.hpp"
#include "importscope/util/clock.hpp"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <unistd.h>

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

bool JournalWriter::start(const std::filesystem::path& run_dir) noexcept
{
    close();
    const int pid = static_cast<int>(::getpid());
    for (int n = 0; n < 1000; ++n) {
        const std::string name = std::string(journal::k_journal_prefix) + std::to_string(pid) + "-" +
                                 std::to_string(n) + journal::k_journal_suffix;
        const int fd = ::open((run_dir / name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
        if (fd >= 0) {
            m_seq = 0;
            m_import_id = 0;
            open(fd, pid);
            return true;
        }
        if (errno != EEXIST)
            return false;
    }
    return false;
}

void JournalWriter::close() noexcept
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

bool JournalWriter::append(const journal::Event& event) noexcept
{
    if (m_fd < 0)
        return false;
    try {
        std::string& line = m_line;
        line.clear();
        journal::encode_to(line, event);
        // O_APPEND makes each write land at the end as a unit; loop only on a short write.
        std::size_t done = 0;
        while (done < line.size()) {
            const ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                ++m_failed_writes;
                return false;
            }
            done += static_cast<std::size_t>(n);
        }
        return true;
    } catch (...) {
        ++m_failed_writes;
        return false;
    }
}

} // namespace importscope::hook
