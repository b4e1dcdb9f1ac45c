#include "importscope/util/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace importscope {

namespace {

/// The length of the well-formed UTF-8 sequence at the start of `text` (Unicode's table 3-7: no
/// overlong form, no surrogate, nothing past U+10FFFF), or 0.
std::size_t valid_sequence(std::string_view text)
{
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const auto continues = [&](std::size_t i, unsigned lowest = 0x80, unsigned highest = 0xBF) {
        return i < text.size() && byte(i) >= lowest && byte(i) <= highest;
    };
    const unsigned first = byte(0);
    if (first < 0x80)
        return 1;
    if (first >= 0xC2 && first <= 0xDF)
        return continues(1) ? 2 : 0;
    if (first >= 0xE0 && first <= 0xEF) {
        const unsigned lowest = first == 0xE0 ? 0xA0 : 0x80;
        const unsigned highest = first == 0xED ? 0x9F : 0xBF;
        return continues(1, lowest, highest) && continues(2) ? 3 : 0;
    }
    if (first >= 0xF0 && first <= 0xF4) {
        const unsigned lowest = first == 0xF0 ? 0x90 : 0x80;
        const unsigned highest = first == 0xF4 ? 0x8F : 0xBF;
        return continues(1, lowest, highest) && continues(2) && continues(3) ? 4 : 0;
    }
    return 0;
}

/// Whether every byte is below 0x80: eight at a time, which -O2 does not do for a loop of bytes.
bool is_ascii(std::string_view text)
{
    std::uint64_t high_bits = 0;
    std::size_t at = 0;
    for (; at + 8 <= text.size(); at += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, text.data() + at, 8);
        high_bits |= word;
    }
    for (; at < text.size(); ++at)
        high_bits |= static_cast<unsigned char>(text[at]);
    return (high_bits & 0x8080808080808080ULL) == 0;
}

} // namespace

std::string_view valid_utf8(std::string_view text, std::string& scratch)
{
    if (is_ascii(text))
        return text;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t length = valid_sequence(text.substr(at));
        if (length == 0)
            break;
        at += length;
    }
    if (at == text.size())
        return text;
    scratch.assign(text.substr(0, at));
    while (at < text.size()) {
        const std::size_t length = valid_sequence(text.substr(at));
        if (length == 0) {
            scratch += "\xEF\xBF\xBD";
            ++at;
        } else {
            scratch.append(text.substr(at, length));
            at += length;
        }
    }
    return scratch;
}

} // namespace importscope
