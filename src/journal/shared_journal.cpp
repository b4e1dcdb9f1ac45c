#include "importscope/journal/shared_journal.hpp"

#include "importscope/util/error.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace importscope::journal {

namespace {

/// The end of what was written from `offset`: the first zero byte (a line never holds one: the
/// journal's JSON escapes it).
std::size_t end_of_written(const char* data, std::size_t offset, std::size_t capacity)
{
    if (offset >= capacity)
        return capacity;
    const void* zero = std::memchr(data + offset, '\0', capacity - offset);
    return zero ? static_cast<std::size_t>(static_cast<const char*>(zero) - data) : capacity;
}

} // namespace

SharedJournal::SharedJournal(std::size_t capacity) : m_capacity(capacity)
{
    const int fd = ::memfd_create("importscope-journal", MFD_CLOEXEC);
    if (fd < 0)
        throw system_error("cannot create the shared journal (memfd_create)", errno);
    if (::ftruncate(fd, static_cast<off_t>(capacity)) != 0) {
        const int err = errno;
        ::close(fd);
        throw system_error("cannot size the shared journal", err);
    }
    void* data = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int err = errno;
    ::close(fd); // the mapping keeps the memory
    if (data == MAP_FAILED)
        throw system_error("cannot map the shared journal", err);
    m_data = static_cast<char*>(data);
}

SharedJournal::~SharedJournal()
{
    ::munmap(m_data, m_capacity);
}

std::string SharedJournal::name() const
{
    // The first byte is written last (publish_journal_name).
    if (std::atomic_ref<char>(m_data[0]).load(std::memory_order_acquire) == '\0')
        return {};
    return {m_data, ::strnlen(m_data, k_header - 1)};
}

bool SharedJournal::overflowed() const
{
    return std::atomic_ref<char>(m_data[k_header - 1]).load(std::memory_order_acquire) != '\0';
}

std::string_view SharedJournal::complete_lines(std::size_t offset) const
{
    const std::size_t end = end_of_written(m_data, offset, m_capacity);
    std::size_t last = end;
    while (last > offset && m_data[last - 1] != '\n')
        --last;
    std::atomic_thread_fence(std::memory_order_acquire); // the lines before each newline are whole
    return {m_data + offset, last - offset};
}

std::string_view SharedJournal::written(std::size_t offset) const
{
    std::atomic_thread_fence(std::memory_order_acquire);
    return {m_data + offset, end_of_written(m_data, offset, m_capacity) - offset};
}

void SharedJournalLines::publish_name(std::string_view name) noexcept
{
    // The header's last byte is the overflow mark; the one before it ends the name.
    const std::size_t size = std::min(name.size(), SharedJournal::k_header - 2);
    if (size == 0 || !m_data)
        return;
    std::memcpy(m_data + 1, name.data() + 1, size - 1);
    std::atomic_ref<char>(m_data[0]).store(name[0], std::memory_order_release);
}

bool SharedJournalLines::append(std::string_view line) noexcept
{
    if (!m_data || line.size() > m_capacity - m_end) {
        if (m_data)
            std::atomic_ref<char>(m_data[SharedJournal::k_header - 1]).store(1, std::memory_order_release);
        return false;
    }
    if (line.empty())
        return true;
    // A signal handler that appends its line in the middle of this one starts at the same place:
    // its line replaces the interrupted one, whose rest the process never writes.
    std::memcpy(m_data + m_end, line.data(), line.size() - 1);
    std::atomic_ref<char>(m_data[m_end + line.size() - 1]).store(line.back(), std::memory_order_release);
    m_end += line.size();
    return true;
}

} // namespace importscope::journal
