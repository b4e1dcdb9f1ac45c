#pragma once

// RapidJSON's writers, the journal's and the report's, with one thing more: a string that needs no
// escape is copied into the buffer in one go. RapidJSON 1.1 (without RAPIDJSON_SSE2, which it gets
// wrong: see src/layers.cmake) looks up and copies each byte of each string and key, which was
// most of the cost of an event's line inside the traced process. The text is the same: RapidJSON
// escapes exactly the control characters, '"' and '\\', and writes every other byte as it is
// (tests/unit/test_journal.cpp compares the two on every byte value). Callers pass valid UTF-8
// (util/utf8.hpp), as RapidJSON's writers need too.

#include <rapidjson/prettywriter.h>
#include <rapidjson/writer.h>

#include <cassert>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace importscope::json_writer {

/// Whether RapidJSON would escape a byte of `text`: a control character, '"' or '\\'. Eight bytes
/// at a time, with the usual tests for a zero byte and a byte below n (exact for "any"), since a
/// loop of a byte at a time is what -O2 leaves unvectorized.
inline bool needs_escape(std::string_view text)
{
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t highs = 0x8080808080808080ULL;
    const auto any_zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
    std::size_t at = 0;
    for (; at + 8 <= text.size(); at += 8) {
        std::uint64_t v = 0;
        std::memcpy(&v, text.data() + at, 8);
        if (((v - ones * 0x20) & ~v & highs) | any_zero(v ^ (ones * '"')) | any_zero(v ^ (ones * '\\')))
            return true;
    }
    for (; at < text.size(); ++at) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte < 0x20 || byte == '"' || byte == '\\')
            return true;
    }
    return false;
}

/// `text` between quotes at the end of `out` (a rapidjson::StringBuffer).
template <typename Buffer>
void put_quoted(Buffer& out, std::string_view text)
{
    char* at = out.Push(text.size() + 2);
    at[0] = '"';
    std::memcpy(at + 1, text.data(), text.size());
    at[text.size() + 1] = '"';
}

/// One of RapidJSON's writers (`Base`), whose strings and keys go through put_quoted() when they
/// need no escape. `pretty`: Base is a rapidjson::PrettyWriter, whose prefix differs.
template <typename Base, bool pretty>
class FastStrings : public Base {
public:
    using Base::Base;

    bool String(const char* text, rapidjson::SizeType size, bool copy = false)
    {
        if (needs_escape({text, size}))
            return Base::String(text, size, copy);
        return put_plain({text, size});
    }
    bool Key(const char* text, rapidjson::SizeType size, bool copy = false) { return String(text, size, copy); }

    /// A key of the writer's own (a name in the code, never data): no escape to look for.
    bool LiteralKey(std::string_view name)
    {
        assert(!needs_escape(name));
        return put_plain(name);
    }

private:
    /// A string that needs no escape, as Base would write it.
    bool put_plain(std::string_view text)
    {
        if constexpr (pretty)
            Base::PrettyPrefix(rapidjson::kStringType);
        else
            Base::Prefix(rapidjson::kStringType);
        put_quoted(*Base::os_, text);
        if constexpr (pretty)
            return true;
        else
            return Base::EndValue(true);
    }
};

/// rapidjson::Writer (compact).
template <typename Buffer>
using Compact = FastStrings<rapidjson::Writer<Buffer>, false>;

/// rapidjson::PrettyWriter (indented).
template <typename Buffer>
using Pretty = FastStrings<rapidjson::PrettyWriter<Buffer>, true>;

} // namespace importscope::json_writer
