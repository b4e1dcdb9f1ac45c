#include "importscope/journal/problem_channel.hpp"

#include "importscope/util/error.hpp"
#include "importscope/util/unique_fd.hpp"

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
    m_fd.reset(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!m_fd)
        throw system_error("problem inbox socket", errno);
    // The kernel attaches each sender's pid, uid and gid to what it delivers here.
    const int on = 1;
    if (::setsockopt(m_fd.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
        throw system_error("problem inbox credentials", errno);
    std::random_device random;
    for (int attempt = 0; attempt < 8; ++attempt) {
        m_address = fmt::format("importscope-{}-{:08x}{:08x}", ::getpid(), random(), random());
        sockaddr_un address{};
        socklen_t length = 0;
        to_socket_address(m_address.c_str(), address, length);
        if (::bind(m_fd.get(), reinterpret_cast<const sockaddr*>(&address), length) == 0)
            return;
        if (errno != EADDRINUSE)
            break;
    }
    throw system_error("problem inbox bind", errno);
}

void ProblemInbox::close_in_forked_child() const noexcept
{
    ::close(m_fd.get()); // the child never destroys the inbox: it ends with _exit or exec
}

std::vector<std::string> ProblemInbox::take()
{
    std::vector<std::string> messages;
    std::array<char, 4096> buffer{};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(ucred))> control{};
    const uid_t own = ::geteuid();
    while (true) {
        iovec data{buffer.data(), buffer.size()};
        msghdr message{};
        message.msg_iov = &data;
        message.msg_iovlen = 1;
        message.msg_control = control.data();
        message.msg_controllen = control.size();
        const ssize_t n = ::recvmsg(m_fd.get(), &message, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return messages; // EAGAIN: nothing more for now
        const cmsghdr* header = CMSG_FIRSTHDR(&message);
        ucred sender{};
        const bool has_credentials = header && header->cmsg_level == SOL_SOCKET &&
                                     header->cmsg_type == SCM_CREDENTIALS && header->cmsg_len >= CMSG_LEN(sizeof sender);
        if (has_credentials)
            std::memcpy(&sender, CMSG_DATA(header), sizeof sender);
        if (!has_credentials || sender.uid != own) {
            ++m_refused;
            m_refused_uid = has_credentials ? sender.uid : 0;
            continue;
        }
        if (m_kept >= k_problems_kept) {
            ++m_dropped;
            continue;
        }
        ++m_kept;
        messages.emplace_back(buffer.data(), static_cast<std::size_t>(n));
    }
}

std::string ProblemInbox::dropped() const
{
    return m_dropped ? fmt::format("{} more problem messages from the traced processes dropped (the first {} are kept)",
                                   m_dropped, k_problems_kept)
                     : std::string{};
}

std::string ProblemInbox::refused() const
{
    return m_refused ? fmt::format("{} datagrams from another user (uid {}) to the problem inbox refused: only "
                                   "the run's own user's processes may report problems",
                                   m_refused, m_refused_uid)
                     : std::string{};
}

bool send_problem(const char* address_name, const char* text) noexcept
{
    sockaddr_un address{};
    socklen_t length = 0;
    if (!address_name || !to_socket_address(address_name, address, length))
        return false;
    const UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd)
        return false;
    const ssize_t sent =
        ::sendto(fd.get(), text, std::strlen(text), MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&address), length);
    return sent >= 0;
}

} // namespace importscope::journal
