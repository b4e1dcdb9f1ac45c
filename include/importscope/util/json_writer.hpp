#pragma once

// The one JSON text writer of importscope's streams (the report's records, `journal dump`): it
// appends to a std::string, compact or indented by two, and copies a string that needs no escape
// in one go. Trees are nlohmann's; this writes what is too large or too hot to become one. Callers
// pass valid UTF-8 (util/utf8.hpp); the writer escapes '"', '\\' and the control characters
// (\b \f \n \r \t by name, the rest as \u00XX) and writes every other byte as it is.

#include <fmt/format.h>

#include <array>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>

namespace importscope::json_writer {

/// Whether a byte of `text` must be escaped: a control character, '"' or '\\'. Eight bytes at a
/// time, with the usual tests for a zero byte and a byte below n (exact for "any"), since a loop
/// of a byte at a time is what -O2 leaves unvectorized.
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

/// A key named in the code, made at compile time with its quotes and colon, and with the comma
/// that goes before every key of an object but its first: in a compact object, writing it is
/// one copy (Writer::known_key). A name that JSON would escape does not compile.
class LiteralKey {
public:
    template <std::size_t N>
    consteval LiteralKey(const char (&name)[N]) // NOLINT(google-explicit-constructor): j.key("name")
        : m_size(N - 1)
    {
        static_assert(N - 1 <= k_longest, "a key longer than LiteralKey holds");
        m_text[0] = ',';
        m_text[1] = '"';
        for (std::size_t i = 0; i < m_size; ++i) {
            const auto byte = static_cast<unsigned char>(name[i]);
            if (byte < 0x20 || byte == '"' || byte == '\\')
                throw "a key that JSON escapes"; // consteval: no compile
            m_text[2 + i] = name[i];
        }
        m_text[2 + m_size] = '"';
        m_text[3 + m_size] = ':';
    }

    std::string_view name() const { return {m_text.data() + 2, m_size}; }
    /// `"name":`, and `,"name":` after another key.
    std::string_view first() const { return {m_text.data() + 1, m_size + 3}; }
    std::string_view after_another() const { return {m_text.data(), m_size + 4}; }

private:
    static constexpr std::size_t k_longest = 60;
    std::array<char, k_longest + 4> m_text{};
    std::size_t m_size;
};

enum class Layout {
    compact,  ///< {"a":1,"b":[2,3]}
    indented, ///< one key or item a line, indented by two; {} and [] when empty
};

class Writer {
public:
    explicit Writer(std::string& out, Layout layout = Layout::compact) : m_out(&out), m_layout(layout) {}

    /// Starts again from the top, appending to `out`.
    void reset(std::string& out)
    {
        m_out = &out;
        m_depth = 0;
        m_filled = false;
        m_after_key = false;
    }

    void start_object() { open('{'); }
    void end_object() { close('}'); }
    void start_array() { open('['); }
    void end_array() { close(']'); }

    /// A key that is data (escaped when it needs it).
    void key(std::string_view name)
    {
        before_value();
        quoted(name);
        colon();
    }
    /// A key of the writer's caller, a name in the code that needs no escape. In a compact object
    /// the comma before it, the key and the colon after it are one append: most of what a stream
    /// of records writes is keys.
    void literal_key(std::string_view name)
    {
        if (m_layout == Layout::compact && m_depth > 0 && name.size() <= k_short_key) {
            std::array<char, k_short_key + 4> piece; // NOLINT(cppcoreguidelines-pro-type-member-init): written before read
            std::size_t size = 0;
            if (m_filled)
                piece[size++] = ',';
            piece[size++] = '"';
            std::memcpy(piece.data() + size, name.data(), name.size());
            size += name.size();
            piece[size++] = '"';
            piece[size++] = ':';
            m_out->append(piece.data(), size);
            m_filled = true;
            m_after_key = true;
            return;
        }
        before_value();
        plain_quoted(name);
        colon();
    }

    /// A key of the code's (LiteralKey), in a compact object one copy with its comma and colon.
    void known_key(const LiteralKey& key)
    {
        if (m_layout == Layout::compact && m_depth > 0) {
            const std::string_view text = m_filled ? key.after_another() : key.first();
            m_out->append(text.data(), text.size());
            m_filled = true;
            m_after_key = true;
            return;
        }
        before_value();
        plain_quoted(key.name());
        colon();
    }

    void string(std::string_view text)
    {
        before_value();
        quoted(text);
    }
    /// A string its caller knows needs no escape (needs_escape() said so): copied between quotes.
    void unescaped_string(std::string_view text)
    {
        before_value();
        plain_quoted(text);
    }
    void boolean(bool value)
    {
        before_value();
        m_out->append(value ? "true" : "false");
    }
    void null()
    {
        before_value();
        m_out->append("null");
    }
    template <std::integral I>
    void number(I value)
    {
        before_value();
        // fmt's integer formatter alone: format_to would parse a format string for every number.
        if constexpr (std::is_signed_v<I>) {
            const fmt::format_int text(static_cast<long long>(value));
            m_out->append(text.data(), text.size());
        } else {
            const fmt::format_int text(static_cast<unsigned long long>(value));
            m_out->append(text.data(), text.size());
        }
    }
    /// A finite double, shortest form that reads back the same, with a ".0" where it would read
    /// as an integer; null for NaN and infinities, which JSON has not.
    void number(double value);

    /// Makes way for an item of the open array or object that another writer puts into the same
    /// text next (reset() to it): the comma and the line break this writer would have written.
    void item_follows() { before_value(); }

private:
    void open(char bracket)
    {
        before_value();
        m_out->push_back(bracket);
        ++m_depth;
        m_filled = false;
    }
    static constexpr std::size_t k_short_key = 60;

    void close(char bracket);
    /// The separator before a key, a value, or an item: a comma, a line break and indent; nothing
    /// before a key's value, whose key wrote the colon (most values of a record: inline).
    void before_value()
    {
        if (m_after_key) {
            m_after_key = false;
            return;
        }
        if (m_depth > 0)
            separate();
    }
    void separate();
    /// After a key: its value comes next.
    void colon()
    {
        m_out->append(m_layout == Layout::indented ? ": " : ":");
        m_after_key = true;
    }
    void new_line(std::size_t depth);
    void quoted(std::string_view text);
    /// `text` between quotes, in one append.
    void plain_quoted(std::string_view text)
    {
        const std::size_t at = m_out->size();
        m_out->append(text.size() + 2, '"');
        std::memcpy(m_out->data() + at + 1, text.data(), text.size());
    }

    std::string* m_out;
    Layout m_layout;
    std::size_t m_depth = 0;  ///< the arrays and objects open
    bool m_filled = false;    ///< the innermost open one has a key or an item already
    bool m_after_key = false; ///< a key was written: its value comes next
};

} // namespace importscope::json_writer
