#include "importscope/journal/problem_channel.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <random>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace importscope::journal {

namespace {

/// The abstract address: a leading NUL, then the name; `length` is what bind and sendto take.
bool to_socket_address(const char* name, sockaddr_un& address, socklen_t& length) noexcept
{
    const std::size_t size = std::strlen(name);
    if (size == 0 || size + 1 > sizeof address.sun_path)
        return false;
    address = {};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path + 1, name, size);
    length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + size);
    return true;
}

} // namespace

ProblemInbox::ProblemInbox()
{
    m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m_fd < 0)
        throw system_error("problem inbox socket", errno);
    std::random_device random;
    for (int attempt = 0; attempt < 8; ++attempt) {
        m_address = fmt::format("importscope-{}-{:08x}{:08x}", ::getpid(), random(), random());
        sockaddr_un address{};
        socklen_t length = 0;
        to_socket_address(m_address.c_str(), address, length);
        if (::bind(m_fd, reinterpret_cast<const sockaddr*>(&address), length) == 0)
            return;
        if (errno != EADDRINUSE)
            break;
    }
    const int err = errno;
    ::close(m_fd);
    throw system_error("problem inbox bind", err);
}

ProblemInbox::~ProblemInbox()
{
    ::close(m_fd);
}

std::vector<std::string> ProblemInbox::take()
{
    std::vector<std::string> messages;
    std::array<char, 4096> buffer{};
    while (true) {
        const ssize_t n = ::recv(m_fd, buffer.data(), buffer.size(), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return messages; // EAGAIN: nothing more for now
        messages.emplace_back(buffer.data(), static_cast<std::size_t>(n));
    }
}

bool send_problem(const char* address_name, const char* text) noexcept
{
    sockaddr_un address{};
    socklen_t length = 0;
    if (!address_name || !to_socket_address(address_name, address, length))
        return false;
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    const ssize_t sent =
        ::sendto(fd, text, std::strlen(text), MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&address), length);
    ::close(fd);
    return sent >= 0;
}

} // namespace importscope::journal
