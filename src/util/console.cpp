#include "importscope/util/console.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace importscope {

void print_to_stderr(std::string_view text) noexcept
{
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; // nowhere to tell it: the exit status still does
        done += static_cast<std::size_t>(n);
    }
}

void ensure_standard_descriptors() noexcept
{
    for (int fd = 0; fd < 3; ++fd)
        if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            const int opened = ::open("/dev/null", O_RDWR);
            if (opened >= 0 && opened != fd) {
                ::dup2(opened, fd);
                ::close(opened);
            }
        }
}

} // namespace importscope
