#include "hook/journal_writer.hpp"

#include <cerrno>
#include <unistd.h>

namespace importscope::hook {

JournalWriter& JournalWriter::instance()
{
    static JournalWriter writer;
    return writer;
}

void JournalWriter::open(int fd, int pid) noexcept
{
    m_fd = fd;
    m_pid = pid;
}

void JournalWriter::append(const journal::Event& event) noexcept
{
    if (m_fd < 0)
        return;
    try {
        const std::string line = journal::encode(event);
        // O_APPEND makes each write land at the end as a unit; loop only on a short write.
        std::size_t done = 0;
        while (done < line.size()) {
            const ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                ++m_failed_writes;
                return;
            }
            done += static_cast<std::size_t>(n);
        }
    } catch (...) {
        ++m_failed_writes;
    }
}

} // namespace importscope::hook
