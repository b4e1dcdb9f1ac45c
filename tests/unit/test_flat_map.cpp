#include "importscope/util/flat_map.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

using importscope::FlatMap;

namespace {

/// Every key in one place: each look-up probes past all the others.
struct OneHash {
    std::size_t operator()(std::uint64_t) const { return 42; }
};

/// A pointer-like key: multiples of 16, whose low bits are all zeros.
struct Aligned {
    std::size_t operator()(std::uint64_t key) const { return key * 16; }
};

template <typename Map>
void check_like_std_map(Map& map, std::uint64_t keys, std::uint64_t seed)
{
    std::mt19937_64 random(seed);
    std::map<std::uint64_t, int> expected;
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t key = random() % keys;
        const auto [value, made] = map.try_emplace(key);
        const auto [it, inserted] = expected.try_emplace(key, 0);
        REQUIRE(made == inserted);
        REQUIRE(*value == it->second);
        *value = ++it->second;
    }
    CHECK(map.size() == expected.size());
    for (const auto& [key, count] : expected) {
        const int* found = map.find(key);
        REQUIRE(found);
        CHECK(*found == count);
    }
    std::size_t visited = 0;
    map.for_each([&](std::uint64_t key, int value) {
        ++visited;
        CHECK(expected.at(key) == value);
    });
    CHECK(visited == expected.size());
    CHECK(map.find(keys + 1) == nullptr);
}

} // namespace

TEST_CASE("a flat map keeps every entry through its growth, as std::map does", "[flat_map]")
{
    SECTION("spread keys")
    {
        FlatMap<std::uint64_t, int> map;
        check_like_std_map(map, 5000, 1);
    }
    SECTION("keys whose hashes differ only above their low bits")
    {
        FlatMap<std::uint64_t, int, Aligned> map;
        check_like_std_map(map, 5000, 2);
    }
    SECTION("keys whose hashes are all equal")
    {
        FlatMap<std::uint64_t, int, OneHash> map;
        check_like_std_map(map, 300, 3);
    }
}

TEST_CASE("a cleared flat map is empty and fills again", "[flat_map]")
{
    FlatMap<std::uint64_t, int> map;
    CHECK(map.find(7) == nullptr);
    *map.try_emplace(7).first = 1;
    map.clear();
    CHECK(map.size() == 0);
    CHECK(map.find(7) == nullptr);
    const auto [value, made] = map.try_emplace(7);
    CHECK(made);
    CHECK(*value == 0);
}

TEST_CASE("a flat map visits its entries in the order they came, through its growth", "[flat_map]")
{
    FlatMap<std::uint64_t, int> map;
    for (std::uint64_t key = 0; key < 3000; ++key)
        *map.try_emplace(key * 7919 % 3001).first = static_cast<int>(key);
    std::vector<int> order;
    map.for_each([&](std::uint64_t, int value) { order.push_back(value); });
    REQUIRE(order.size() == 3000);
    for (std::size_t i = 0; i < order.size(); ++i)
        REQUIRE(order[i] == static_cast<int>(i));
}
