#pragma once

// EventKinds: a set of the journal's event kinds (the alternatives of journal::Event), tested in
// constant time against an event; how the finders' registry (finders.hpp) and the model builder
// name the events that matter to them.

#include "importscope/journal/event.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <variant>

namespace importscope::analysis {

class EventKinds {
public:
    constexpr EventKinds() = default;

    /// The set of `Events`, each an alternative of journal::Event.
    template <typename... Events>
    static constexpr EventKinds of()
    {
        return EventKinds((bit<Events>() | ... | std::uint64_t{0}));
    }

    bool contains(const journal::Event& event) const { return ((m_bits >> event.index()) & 1U) != 0; }
    constexpr bool empty() const { return m_bits == 0; }
    constexpr EventKinds operator|(EventKinds other) const { return EventKinds(m_bits | other.m_bits); }
    constexpr bool operator==(const EventKinds&) const = default;

private:
    constexpr explicit EventKinds(std::uint64_t bits) : m_bits(bits) {}

    template <typename Event, typename... Alternatives>
    static constexpr std::size_t index_in(const std::variant<Alternatives...>*)
    {
        constexpr std::array<bool, sizeof...(Alternatives)> same{std::is_same_v<Event, Alternatives>...};
        for (std::size_t i = 0; i < same.size(); ++i)
            if (same[i])
                return i;
        return same.size();
    }

    template <typename Event>
    static constexpr std::uint64_t bit()
    {
        constexpr std::size_t index = index_in<Event>(static_cast<const journal::Event*>(nullptr));
        static_assert(index < std::variant_size_v<journal::Event>, "not a kind of journal::Event");
        return std::uint64_t{1} << index;
    }

    static_assert(std::variant_size_v<journal::Event> <= 64, "EventKinds holds 64 kinds of event");
    std::uint64_t m_bits = 0;
};

} // namespace importscope::analysis
