#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace importscope {

/// A hash map that keeps its entries in one array (open addressing, linear probing), for the
/// tables the hooks consult on every import: a look-up touches one or two cache lines where a
/// node-based std::unordered_map touches a bucket and a node apart, and growing it moves entries
/// without a division each. Entries are never erased one by one; clear() empties the map.
template <typename Key, typename Value, typename Hash = std::hash<Key>>
class FlatMap {
public:
    using Entry = std::pair<Key, Value>;

    /// The value of `key`, made by Value{} if the map had none; and whether it was made now.
    std::pair<Value*, bool> try_emplace(const Key& key)
    {
        if ((m_size + 1) * 2 > m_slots.size())
            grow();
        std::optional<Entry>& slot = m_slots[find_slot(m_slots, key)];
        if (slot)
            return {&slot->second, false};
        slot.emplace(key, Value{});
        ++m_size;
        return {&slot->second, true};
    }

    /// The value of `key`, or null.
    Value* find(const Key& key)
    {
        if (m_slots.empty())
            return nullptr;
        std::optional<Entry>& slot = m_slots[find_slot(m_slots, key)];
        return slot ? &slot->second : nullptr;
    }

    std::size_t size() const { return m_size; }

    void clear()
    {
        m_slots.clear();
        m_size = 0;
    }

    /// Calls `visit(key, value)` for each entry, in no particular order.
    template <typename Visit>
    void for_each(Visit&& visit)
    {
        for (std::optional<Entry>& slot : m_slots)
            if (slot)
                visit(slot->first, slot->second);
    }

private:
    /// The slot that holds `key`, or the empty one where it would go (the table is never full).
    static std::size_t find_slot(const std::vector<std::optional<Entry>>& slots, const Key& key)
    {
        const std::size_t mask = slots.size() - 1;
        // Fibonacci hashing: the product's high bits, which depend on all of the hash's (a
        // pointer's low bits are zeros).
        const int shift = 64 - std::countr_zero(slots.size());
        for (std::size_t i = (std::uint64_t{Hash()(key)} * 0x9E3779B97F4A7C15ULL) >> shift;; i = (i + 1) & mask)
            if (!slots[i] || slots[i]->first == key)
                return i;
    }

    void grow()
    {
        std::vector<std::optional<Entry>> slots(m_slots.empty() ? 1024 : m_slots.size() * 2);
        for (std::optional<Entry>& slot : m_slots)
            if (slot)
                slots[find_slot(slots, slot->first)] = std::move(slot);
        m_slots = std::move(slots);
    }

    std::vector<std::optional<Entry>> m_slots; ///< a power of two of them, at most half used
    std::size_t m_size = 0;
};

} // namespace importscope
