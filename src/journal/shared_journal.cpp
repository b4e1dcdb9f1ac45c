#include "importscope/journal/shared_journal.hpp"

#include "importscope/util/error.hpp"

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

constexpr std::size_t k_size_bytes = sizeof(std::uint32_t);

/// Where the record after one of `size` bytes at `offset` starts.
constexpr std::size_t next_record(std::size_t offset, std::size_t size)
{
    return (offset + k_size_bytes + size + k_size_bytes - 1) & ~(k_size_bytes - 1);
}

} // namespace

std::optional<SharedRecord> take_record(std::string_view& records)
{
    if (records.size() < k_size_bytes + 1)
        return std::nullopt;
    std::uint32_t size = 0;
    std::memcpy(&size, records.data(), sizeof size);
    if (size == 0)
        return std::nullopt; // records() ends before a record without its size
    const SharedRecord record{static_cast<RecordForm>(records[k_size_bytes]),
                              records.substr(k_size_bytes + 1, size - 1)};
    records.remove_prefix(std::min(records.size(), next_record(0, size)));
    return record;
}

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

std::string_view SharedJournal::records(std::size_t offset) const
{
    std::size_t end = offset;
    while (end + k_size_bytes < m_capacity) {
        const std::uint32_t size = size_at(m_data, end).load(std::memory_order_acquire);
        if (size == 0 || size > m_capacity - end - k_size_bytes)
            break; // not written yet (or, if the target wrote over the memory, never readable)
        end = std::min(m_capacity, next_record(end, size));
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

bool SharedJournalWriter::append(RecordForm form, std::string_view payload) noexcept
{
    const std::size_t size = payload.size() + 1;
    const std::size_t next = next_record(m_end, size);
    if (!m_data || size > UINT32_MAX || next > m_capacity) {
        if (m_data)
            std::atomic_ref<char>(m_data[SharedJournal::k_header - 1]).store(1, std::memory_order_release);
        return false;
    }
    // A signal handler that appends its record in the middle of this one starts at the same place:
    // its record replaces the interrupted one, whose rest the process never writes.
    m_data[m_end + k_size_bytes] = static_cast<char>(form);
    std::memcpy(m_data + m_end + k_size_bytes + 1, payload.data(), payload.size());
    size_at(m_data, m_end).store(static_cast<std::uint32_t>(size), std::memory_order_release);
    m_end = next;
    return true;
}

} // namespace importscope::journal
