#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string_view>

namespace importscope {

/// Bytes in storage of a fixed capacity, owned by the object: for text and records made where
/// nothing may allocate (a signal handler, the journal's writer when a write fails). What does not
/// fit is cut off, and overflowed() says so. Its last byte is kept for the NUL that c_str() adds.
template <std::size_t Capacity>
class FixedBuffer {
public:
    static_assert(Capacity > 1);

    void clear() noexcept
    {
        m_size = 0;
        m_overflowed = false;
    }
    void append(const char* bytes, std::size_t size) noexcept
    {
        const std::size_t room = Capacity - 1 - m_size;
        if (size > room)
            m_overflowed = true;
        std::memcpy(m_bytes.data() + m_size, bytes, std::min(size, room));
        m_size += std::min(size, room);
    }
    void push_back(char byte) noexcept { append(&byte, 1); }
    /// Sets the size, zeros after the old end (as std::string::resize).
    void resize(std::size_t size) noexcept
    {
        if (size > Capacity - 1)
            m_overflowed = true;
        size = std::min(size, Capacity - 1);
        if (size > m_size)
            std::memset(m_bytes.data() + m_size, 0, size - m_size);
        m_size = size;
    }

    /// Replaces the contents with `format` applied to `args` (fmt::format_to_n: nothing allocated
    /// for numbers and strings), and gives them as a C string.
    template <typename... Args>
    const char* format(fmt::format_string<Args...> format, Args&&... args) noexcept
    {
        const auto result = fmt::format_to_n(m_bytes.data(), Capacity - 1, format, std::forward<Args>(args)...);
        m_overflowed = result.size > Capacity - 1;
        m_size = std::min<std::size_t>(result.size, Capacity - 1);
        return c_str();
    }

    char* data() noexcept { return m_bytes.data(); }
    const char* data() const noexcept { return m_bytes.data(); }
    std::size_t size() const noexcept { return m_size; }
    std::string_view view() const noexcept { return {m_bytes.data(), m_size}; }
    const char* c_str() noexcept
    {
        m_bytes[m_size] = '\0';
        return m_bytes.data();
    }
    /// Something was cut off since the last clear() or format().
    bool overflowed() const noexcept { return m_overflowed; }

private:
    std::array<char, Capacity> m_bytes{};
    std::size_t m_size = 0;
    bool m_overflowed = false;
};

} // namespace importscope
