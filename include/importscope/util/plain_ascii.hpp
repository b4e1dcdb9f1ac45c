#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace importscope {

/// How many bytes at the start of `text` stand for themselves inside a JSON string: printable
/// ASCII but the quote and the backslash. Paths and names are made of little else, so this looks at
/// eight bytes at a time (SWAR); the lowest flagged byte of the first word that holds another one is
/// where the run ends (a borrow only ever flags bytes above a true one). The last bytes of a text
/// shorter than a word are looked at one by one.
inline std::size_t plain_ascii_prefix(std::string_view text)
{
    constexpr std::uint64_t k_ones = 0x0101010101010101ULL;
    constexpr std::uint64_t k_highs = 0x8080808080808080ULL;
    auto has_zero = [](std::uint64_t w) { return (w - k_ones) & ~w & k_highs; };
    std::size_t at = 0;
    for (; at + 8 <= text.size(); at += 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, text.data() + at, 8);
        const std::uint64_t special = ((w - k_ones * 0x20) & ~w & k_highs) // a byte below 0x20
                                      | has_zero(w ^ (k_ones * '"')) | has_zero(w ^ (k_ones * '\\'))
                                      | (w & k_highs); // a byte above 0x7f
        if (special != 0) {
            if constexpr (std::endian::native == std::endian::little)
                return at + static_cast<std::size_t>(std::countr_zero(special) / 8);
            break; // the word's first byte is its highest: let the loop below find it
        }
    }
    while (at < text.size()) {
        const auto c = static_cast<unsigned char>(text[at]);
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
            break;
        ++at;
    }
    return at;
}

} // namespace importscope
