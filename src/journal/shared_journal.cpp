#include "importscope/journal/shared_journal.hpp"

#include "importscope/journal/record_format.hpp"
#include "importscope/util/error.hpp"
#include "importscope/util/unique_fd.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace importscope::journal {

namespace {

/// A record's size: the 32 bits at its start, written last, with release order.
std::atomic_ref<std::uint32_t> size_at(char* data, std::size_t offset)
{
    return std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t*>(data + offset)); // NOLINT
}

} // namespace

SharedJournal::SharedJournal(std::size_t capacity) : m_capacity(capacity)
{
    const UniqueFd fd(::memfd_create("importscope-journal", MFD_CLOEXEC)); // the mapping keeps the memory
    if (!fd)
        throw system_error("cannot create the shared journal (memfd_create)", errno);
    if (::ftruncate(fd.get(), static_cast<off_t>(capacity)) != 0)
        throw system_error("cannot size the shared journal", errno);
    void* data = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    const int err = errno;
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

std::string_view SharedJournal::records(std::size_t offset) const
{
    std::size_t end = offset;
    while (end + k_size_bytes < m_capacity) {
        const std::uint32_t size = size_at(m_data, end).load(std::memory_order_acquire);
        if (size == 0 || size > k_max_record || size > m_capacity - end - k_size_bytes)
            break; // not written yet (or, if the target wrote over the memory, never readable)
        end = std::min(m_capacity, end + framed_size(size));
    }
    return {m_data + offset, end - offset};
}

bool SharedJournal::cut_short(std::size_t offset) const
{
    return offset + k_size_bytes < m_capacity &&
                      (size_at(m_data, offset).load(std::memory_order_acquire) != 0 ||
            std::atomic_ref<char>(m_data[offset + k_size_bytes]).load(std::memory_order_relaxed) != '\0');
}

void SharedJournalWriter::publish_name(std::string_view name) noexcept
{
    // The header's last byte is the overflow mark; the one before it ends the name.
    const std::size_t size = std::min(name.size(), SharedJournal::k_header - 2);
    if (size == 0 || !m_data)
        return;
    std::memcpy(m_data + 1, name.data() + 1, size - 1);
    std::atomic_ref<char>(m_data[0]).store(name[0], std::memory_order_release);
}

void SharedJournalWriter::populate_ahead(std::size_t offset) const noexcept
{
    const std::size_t start = (offset / k_populate_chunk + 1) * k_populate_chunk;
    if (start >= m_capacity)
        return;
    const int saved = errno; // a signal handler's append leaves errno as it was
    ::madvise(m_data + start, std::min(k_populate_chunk, m_capacity - start), MADV_POPULATE_WRITE);
    errno = saved;
}

bool SharedJournalWriter::append(std::string_view record) noexcept
{
    const std::size_t next = m_end + record.size();
    if (!m_data || record.size() < k_record_frame || record.size() > k_max_record || next > m_capacity) {
        if (m_data)
            std::atomic_ref<char>(m_data[SharedJournal::k_header - 1]).store(1, std::memory_order_release);
        return false;
    }
    if (m_end / k_populate_chunk != next / k_populate_chunk)
        populate_ahead(next);
    // A signal handler that appends its record in the middle of this one starts at the same place:
    // its record replaces the interrupted one, whose rest the process never writes.
    std::memcpy(m_data + m_end + k_size_bytes, record.data() + k_size_bytes, record.size() - k_size_bytes);
    std::uint32_t size = 0;
    std::memcpy(&size, record.data(), sizeof size);
    size_at(m_data, m_end).store(size, std::memory_order_release);
    m_end = next;
    return true;
}

} // namespace importscope::journal
