#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace importscope {

bool write_all(int fd, std::string_view data) noexcept
{
    for (std::size_t done = 0; done < data.size();) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

void print_to_stderr(std::string_view text) noexcept
{
    (void)write_all(STDERR_FILENO, text); // nowhere to tell a failure: the exit status still does
}

void write_to_stdout(std::string_view text)
{
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
        throw system_error("standard output", errno);
}

void flush_stdout()
{
    if (std::fflush(stdout) != 0)
        throw system_error("standard output", errno);
}

unsigned ensure_standard_descriptors() noexcept
{
    unsigned closed = 0;
    for (int fd = 0; fd < 3; ++fd)
        if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            closed |= 1U << fd;
            const int opened = ::open("/dev/null", O_RDWR);
            if (opened >= 0 && opened != fd) {
                ::dup2(opened, fd);
                ::close(opened);
            }
        }
    return closed;
}

bool stderr_wants_color() noexcept
{
    const char* no_color = std::getenv("NO_COLOR");
    return ::isatty(STDERR_FILENO) && !(no_color && *no_color);
}

} // namespace importscope
