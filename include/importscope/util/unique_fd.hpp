#pragma once

#include <unistd.h>

#include <utility>

namespace importscope {

/// A file descriptor owned by one object: closed when the object goes, moved and never copied (the
/// shape of ccache's util/Fd). Every call is async-signal-safe, for the journal's writer in a
/// traced process.
class UniqueFd {
public:
    UniqueFd() noexcept = default;
    explicit UniqueFd(int fd) noexcept : m_fd(fd) {}
    ~UniqueFd() { reset(); }

    UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept
    {
        if (this != &other)
            reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const noexcept { return m_fd; }
    explicit operator bool() const noexcept { return m_fd >= 0; }

    /// Gives the descriptor up without closing it.
    int release() noexcept { return std::exchange(m_fd, -1); }

    /// Closes the descriptor held, if any, and holds `fd` instead.
    void reset(int fd = -1) noexcept
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

} // namespace importscope
