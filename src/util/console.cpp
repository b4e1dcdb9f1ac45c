#include "importscope/util/console.hpp"

#include <cerrno>
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
