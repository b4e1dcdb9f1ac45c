#include "importscope/util/utf8.hpp"

#include <rapidjson/encodings.h>
#include <rapidjson/memorystream.h>

#include <cstdint>
#include <cstring>

namespace importscope {

namespace {

/// Where RapidJSON's validator puts the bytes it has checked: nowhere, or the end of a string.
struct Discard {
    void Put(char /*byte*/) {}
};
struct Append {
    std::string& out;
    void Put(char byte) { out.push_back(byte); }
};

/// The length of the valid sequence at the start of `text`, or 0.
template <typename Output>
std::size_t valid_sequence(std::string_view text, Output& out)
{
    rapidjson::MemoryStream in(text.data(), text.size());
    // A sequence cut off by the end reads '\0' there, which no sequence continues with.
    return rapidjson::UTF8<>::Validate(in, out) ? in.Tell() : 0;
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
    Discard discard;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t length = valid_sequence(text.substr(at), discard);
        if (length == 0)
            break;
        at += length;
    }
    if (at == text.size())
        return text;
    scratch.assign(text.substr(0, at));
    while (at < text.size()) {
        const std::size_t before = scratch.size();
        Append append{scratch};
        const std::size_t length = valid_sequence(text.substr(at), append);
        if (length == 0) {
            scratch.resize(before);
            scratch += "\xEF\xBF\xBD";
            ++at;
        } else {
            at += length;
        }
    }
    return scratch;
}

} // namespace importscope
