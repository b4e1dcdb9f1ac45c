#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace importscope {

/// A hash map for the tables the hooks consult on every import, laid out as CPython's dict is:
/// its entries one after another in the order they came, and a table of slots (open addressing,
/// linear probing) that each hold an entry's position and a part of its hash. A look-up reads a
/// slot or two, 8 bytes each, and the one entry they point at, where a node-based
/// std::unordered_map touches a bucket and a node apart; and the map's memory is its entries plus
/// 16 bytes or less each, where slots that held whole entries at most half full took four times
/// an entry each. Entries are never erased one by one; clear() empties the map.
template <typename Key, typename Value, typename Hash = std::hash<Key>>
class FlatMap {
public:
    using Entry = std::pair<Key, Value>;

    /// The value of `key`, made by Value{} if the map had none; and whether it was made now. The
    /// pointer is valid until the next try_emplace().
    std::pair<Value*, bool> try_emplace(const Key& key)
    {
        if ((m_entries.size() + 1) * 2 > m_slots.size())
            grow();
        const std::uint64_t hash = hash_of(key);
        Slot& slot = m_slots[find_slot(key, hash)];
        if (slot != 0)
            return {&m_entries[position(slot)].second, false};
        m_entries.emplace_back(key, Value{});
        slot = slot_of(hash, m_entries.size() - 1);
        return {&m_entries.back().second, true};
    }

    /// The value of `key`, or null.
    Value* find(const Key& key)
    {
        if (m_slots.empty())
            return nullptr;
        const Slot slot = m_slots[find_slot(key, hash_of(key))];
        return slot != 0 ? &m_entries[position(slot)].second : nullptr;
    }

    std::size_t size() const { return m_entries.size(); }

    void clear()
    {
        m_slots.clear();
        m_entries.clear();
    }

    /// Calls `visit(key, value)` for each entry, in the order they came.
    template <typename Visit>
    void for_each(Visit&& visit)
    {
        for (Entry& entry : m_entries)
            visit(entry.first, entry.second);
    }

private:
    /// 0 for an empty slot; else the entry's position plus one (low half) and the hash's low half.
    using Slot = std::uint64_t;

    static std::uint64_t hash_of(const Key& key)
    {
        // Fibonacci hashing: the product's high bits, which depend on all of the hash's (a
        // pointer's low bits are zeros), place the key; its low bits tell keys apart in a slot.
        return std::uint64_t{Hash()(key)} * 0x9E3779B97F4A7C15ULL;
    }
    static Slot slot_of(std::uint64_t hash, std::size_t position)
    {
        return (hash << 32) | (static_cast<std::uint64_t>(position) + 1);
    }
    static std::size_t position(Slot slot) { return static_cast<std::size_t>((slot & 0xFFFFFFFFULL) - 1); }

    /// The first slot `hash` probes in a table of `size` slots, a power of two.
    static std::size_t home(std::uint64_t hash, std::size_t size)
    {
        return static_cast<std::size_t>(hash >> (64 - std::countr_zero(size)));
    }

    /// The slot that holds `key`, or the empty one where it would go (the table is never full).
    std::size_t find_slot(const Key& key, std::uint64_t hash) const
    {
        const std::size_t mask = m_slots.size() - 1;
        const std::uint64_t tag = hash << 32;
        for (std::size_t i = home(hash, m_slots.size());; i = (i + 1) & mask) {
            const Slot slot = m_slots[i];
            if (slot == 0 || ((slot & ~0xFFFFFFFFULL) == tag && m_entries[position(slot)].first == key))
                return i;
        }
    }

    void grow()
    {
        m_slots.assign(m_slots.empty() ? 1024 : m_slots.size() * 2, 0);
        for (std::size_t at = 0; at < m_entries.size(); ++at) {
            const Key& key = m_entries[at].first;
            const std::uint64_t hash = hash_of(key);
            m_slots[find_slot(key, hash)] = slot_of(hash, at);
        }
    }

    std::vector<Slot> m_slots;    ///< a power of two of them, at most half used
    std::vector<Entry> m_entries; ///< in the order they came
};

} // namespace importscope
