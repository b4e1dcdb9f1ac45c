#include "json_line.hpp"

#include "importscope/util/plain_ascii.hpp"

#include <stdexcept>

namespace importscope::journal::json_line {

namespace {

/// Deeper than any journal line (an object holding an array of objects): input this deep is not
/// ours, and refusing it keeps the recursion bounded.
constexpr int k_max_depth = 16;

class Parser {
public:
    /// Records the values it checks in `nodes`, or nowhere when that is null.
    Parser(std::string_view text, std::vector<Node>* nodes) : m_text(text), m_nodes(nodes) {}

    void document()
    {
        parse_value(0);
        skip_space();
        if (m_at != m_text.size())
            fail("text after the JSON value");
    }

    /// Checks the string at m_at (its opening quote) and moves past it; appends its unescaped text
    /// to `out` unless that is null. True when the string has escapes.
    bool parse_string(std::string* out)
    {
        ++m_at; // '"'
        bool escaped = false;
        while (true) {
            // The run of plain characters, checked and copied at once: plain ASCII and valid UTF-8
            // sequences run on; a quote, an escape or a control byte ends it.
            const std::size_t start = m_at;
            while (true) {
                m_at += plain_ascii_prefix(m_text.substr(m_at));
                if (m_at >= m_text.size() || static_cast<unsigned char>(m_text[m_at]) < 0x80)
                    break;
                const std::size_t length = utf8_sequence();
                if (length == 0)
                    fail("invalid UTF-8");
                m_at += length;
            }
            if (out)
                out->append(m_text, start, m_at - start);
            if (m_at >= m_text.size())
                fail("an unterminated string");
            const char c = m_text[m_at++];
            if (c == '"')
                return escaped;
            if (c != '\\')
                fail("a control character in a string");
            escaped = true;
            if (m_at >= m_text.size())
                fail("an unterminated string");
            const char escape = m_text[m_at++];
            char plain = '\0';
            switch (escape) {
            case '"':
            case '\\':
            case '/':
                plain = escape;
                break;
            case 'b':
                plain = '\b';
                break;
            case 'f':
                plain = '\f';
                break;
            case 'n':
                plain = '\n';
                break;
            case 'r':
                plain = '\r';
                break;
            case 't':
                plain = '\t';
                break;
            case 'u': {
                unsigned code = hex4();
                if (code >= 0xDC00 && code <= 0xDFFF)
                    fail("a lone low surrogate");
                if (code >= 0xD800 && code <= 0xDBFF) {
                    if (m_text.substr(m_at, 2) != "\\u")
                        fail("a lone high surrogate");
                    m_at += 2;
                    const unsigned low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF)
                        fail("a high surrogate without its low half");
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                }
                append_utf8(out, code);
                continue;
            }
            default:
                fail("an unknown escape");
            }
            if (out)
                *out += plain;
        }
    }

private:
    [[noreturn]] void fail(const char* what) const
    {
        throw std::invalid_argument(std::string("not valid JSON: ") + what + " at byte " + std::to_string(m_at));
    }

    void skip_space()
    {
        if (m_at < m_text.size() && static_cast<unsigned char>(m_text[m_at]) > ' ')
            return; // journal lines have no blanks between tokens
        while (m_at < m_text.size() &&
               (m_text[m_at] == ' ' || m_text[m_at] == '\t' || m_text[m_at] == '\n' || m_text[m_at] == '\r'))
            ++m_at;
    }

    char peek() const { return m_at < m_text.size() ? m_text[m_at] : '\0'; }

    void expect(char c, const char* what)
    {
        if (peek() != c)
            fail(what);
        ++m_at;
    }

    /// Checks the value at m_at and records it, after the values inside it.
    void parse_value(int depth)
    {
        if (depth > k_max_depth)
            fail("nesting too deep");
        skip_space();
        const std::size_t index = m_nodes ? m_nodes->size() : 0;
        if (m_nodes)
            m_nodes->emplace_back();
        Value value;
        const std::size_t start = m_at;
        switch (peek()) {
        case '{':
            value.type = Value::Type::object;
            parse_object(depth);
            break;
        case '[':
            value.type = Value::Type::array;
            parse_array(depth);
            break;
        case '"':
            value.type = Value::Type::string;
            value.escaped = parse_string(nullptr);
            value.text = m_text.substr(start + 1, m_at - start - 2);
            record(index, value);
            return;
        case 't':
            literal("true");
            value.type = Value::Type::boolean;
            break;
        case 'f':
            literal("false");
            value.type = Value::Type::boolean;
            break;
        case 'n':
            literal("null");
            break;
        default:
            value.type = Value::Type::number;
            parse_number();
        }
        value.text = m_text.substr(start, m_at - start);
        record(index, value);
    }

    void record(std::size_t index, const Value& value)
    {
        if (!m_nodes)
            return;
        Node& node = (*m_nodes)[index];
        node.value = value;
        node.end = static_cast<std::uint32_t>(m_nodes->size());
    }

    void literal(std::string_view word)
    {
        if (m_text.substr(m_at, word.size()) != word)
            fail("an unknown literal");
        m_at += word.size();
    }

    void parse_object(int depth)
    {
        ++m_at; // '{'
        skip_space();
        if (peek() == '}') {
            ++m_at;
            return;
        }
        while (true) {
            skip_space();
            if (peek() != '"')
                fail("a key that is not a string");
            parse_value(depth + 1);
            skip_space();
            expect(':', "a missing ':'");
            parse_value(depth + 1);
            skip_space();
            if (peek() == ',') {
                ++m_at;
                continue;
            }
            expect('}', "a missing ',' or '}'");
            return;
        }
    }

    void parse_array(int depth)
    {
        ++m_at; // '['
        skip_space();
        if (peek() == ']') {
            ++m_at;
            return;
        }
        while (true) {
            parse_value(depth + 1);
            skip_space();
            if (peek() == ',') {
                ++m_at;
                continue;
            }
            expect(']', "a missing ',' or ']'");
            return;
        }
    }

    void parse_number()
    {
        auto digits = [&] {
            const std::size_t from = m_at;
            while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9')
                ++m_at;
            return m_at - from;
        };
        if (peek() == '-')
            ++m_at;
        if (peek() == '0')
            ++m_at;
        else if (digits() == 0)
            fail("an unexpected character");
        if (peek() == '.') {
            ++m_at;
            if (digits() == 0)
                fail("a number without digits after '.'");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++m_at;
            if (peek() == '+' || peek() == '-')
                ++m_at;
            if (digits() == 0)
                fail("a number without an exponent");
        }
    }

    unsigned hex4()
    {
        if (m_at + 4 > m_text.size())
            fail("a short \\u escape");
        unsigned value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_at++];
            value <<= 4;
            if (c >= '0' && c <= '9')
                value |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f')
                value |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                value |= static_cast<unsigned>(c - 'A' + 10);
            else
                fail("a bad \\u escape");
        }
        return value;
    }

    static void append_utf8(std::string* out_text, unsigned code)
    {
        if (!out_text)
            return;
        std::string& out = *out_text;
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    /// The length of the UTF-8 sequence at m_at (first byte >= 0x80), or 0 when it is not valid.
    std::size_t utf8_sequence() const
    {
        auto byte = [&](std::size_t i) {
            return m_at + i < m_text.size() ? static_cast<unsigned char>(m_text[m_at + i]) : 0u;
        };
        auto continuation = [&](std::size_t i) { return (byte(i) & 0xC0) == 0x80; };
        const unsigned b0 = byte(0);
        if (b0 >= 0xC2 && b0 <= 0xDF)
            return continuation(1) ? 2 : 0;
        if (b0 >= 0xE0 && b0 <= 0xEF) {
            const unsigned b1 = byte(1);
            if ((b0 == 0xE0 && b1 < 0xA0) || (b0 == 0xED && b1 >= 0xA0)) // overlong, or a surrogate
                return 0;
            return continuation(1) && continuation(2) ? 3 : 0;
        }
        if (b0 >= 0xF0 && b0 <= 0xF4) {
            const unsigned b1 = byte(1);
            if ((b0 == 0xF0 && b1 < 0x90) || (b0 == 0xF4 && b1 >= 0x90)) // overlong, or past U+10FFFF
                return 0;
            return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
        }
        return 0;
    }

    std::string_view m_text;
    std::vector<Node>* m_nodes;
    std::size_t m_at = 0;
};

} // namespace

void Document::parse(std::string_view line)
{
    m_nodes.clear();
    Parser(line, &m_nodes).document();
}

void check(std::string_view text)
{
    Parser(text, nullptr).document();
}

std::string string(const Value& value)
{
    if (!value.escaped)
        return std::string(value.text);
    // The view's quotes are in the line, around it: read the string again, unescaping.
    std::string out;
    out.reserve(value.text.size());
    Parser(std::string_view(value.text.data() - 1, value.text.size() + 2), nullptr).parse_string(&out);
    return out;
}


} // namespace importscope::journal::json_line
