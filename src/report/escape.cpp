#include "importscope/report/escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace importscope::report {

namespace {

/// The length of the well-formed UTF-8 sequence at `at` and its code point, or 0 when it is not one.
std::size_t utf8_sequence(std::string_view text, std::size_t at, char32_t& code_point)
{
    const auto lead = static_cast<unsigned char>(text[at]);
    const std::size_t length = lead >= 0xc2 && lead <= 0xdf   ? 2
                               : lead >= 0xe0 && lead <= 0xef ? 3
                               : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                              : 0;
    if (length == 0 || at + length > text.size())
        return 0;
    code_point = lead & (0x7f >> length);
    for (std::size_t i = 1; i < length; ++i) {
        const auto next = static_cast<unsigned char>(text[at + i]);
        if ((next & 0xc0) != 0x80)
            return 0;
        code_point = (code_point << 6) | (next & 0x3f);
    }
    const char32_t least = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
    const bool surrogate = code_point >= 0xd800 && code_point <= 0xdfff;
    return code_point < least || surrogate || code_point > 0x10ffff ? 0 : length;
}

/// C1 controls, the bidi embeddings, overrides, isolates and marks, and the line separators.
bool is_invisible_format(char32_t c)
{
    return (c >= 0x80 && c <= 0x9f) || c == 0x61c || c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

void append_control(std::string& out, unsigned char c, bool keep_newlines)
{
    switch (c) {
    case '\n':
        out += keep_newlines ? "\n" : "\\n";
        return;
    case '\r':
        out += "\\r";
        return;
    case '\t':
        out += "\\t";
        return;
    default:
        out += fmt::format("\\x{:02x}", c);
    }
}

/// A line of text starts a Markdown block when it starts with one of these (after up to 3 spaces).
bool starts_block(std::string_view text)
{
    const std::size_t first = text.find_first_not_of(' ');
    if (first == std::string_view::npos)
        return false;
    return std::string_view("#>-+=:").find(text[first]) != std::string_view::npos;
}

std::size_t longest_backtick_run(std::string_view text)
{
    std::size_t longest = 0, run = 0;
    for (const char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return longest;
}

} // namespace

std::string terminal_text(std::string_view text, bool keep_newlines)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const auto c = static_cast<unsigned char>(text[at]);
        if (c < 0x20 || c == 0x7f) {
            append_control(out, c, keep_newlines);
            ++at;
            continue;
        }
        if (c < 0x80) {
            out += static_cast<char>(c);
            ++at;
            continue;
        }
        char32_t code_point = 0;
        const std::size_t length = utf8_sequence(text, at, code_point);
        if (length == 0) {
            out += fmt::format("\\x{:02x}", c);
            ++at;
        } else if (is_invisible_format(code_point)) {
            out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(code_point));
            at += length;
        } else {
            out.append(text.substr(at, length));
            at += length;
        }
    }
    return out;
}

std::string terminal_lines(std::string_view text, std::string_view indent)
{
    std::string out = terminal_text(text, true);
    for (std::size_t at = out.find('\n'); at != std::string::npos; at = out.find('\n', at + 1 + indent.size()))
        out.insert(at + 1, indent);
    return out;
}

std::string markdown_text(std::string_view text)
{
    const std::string plain = terminal_text(text);
    std::string out;
    out.reserve(plain.size() + 8);
    std::size_t digits = 0; // a leading "12." or "3)" starts an ordered list
    for (std::size_t i = 0; i < plain.size(); ++i) {
        const char c = plain[i];
        const bool list_number =
            (c == '.' || c == ')') && digits == i && i > 0 && (i + 1 == plain.size() || plain[i + 1] == ' ');
        if (std::isdigit(static_cast<unsigned char>(c)) && digits == i)
            ++digits;
        if (std::string_view("\\`*_[]<>|&!~").find(c) != std::string_view::npos || list_number ||
            (i == plain.find_first_not_of(' ') && starts_block(plain)))
            out += '\\';
        out += c;
    }
    return out;
}

std::string markdown_prose(std::string_view text)
{
    std::string out;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t open = text.find('`', at);
        const std::size_t close = open == std::string_view::npos ? open : text.find('`', open + 1);
        if (close == std::string_view::npos) {
            out += markdown_text(text.substr(at));
            break;
        }
        out += markdown_text(text.substr(at, open - at));
        out += markdown_code(text.substr(open + 1, close - open - 1));
        at = close + 1;
    }
    return out;
}

std::string markdown_code(std::string_view text, bool in_table)
{
    std::string body = terminal_text(text);
    if (in_table) {
        std::string piped;
        for (const char c : body)
            piped += c == '|' ? std::string("\\|") : std::string(1, c);
        body = std::move(piped);
    }
    const std::string fence(longest_backtick_run(body) + 1, '`');
    const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
    return pad ? fence + " " + body + " " + fence : fence + body + fence;
}

std::string markdown_fence(const std::vector<std::string>& lines, const std::string& indent, const char* info)
{
    std::vector<std::string> escaped;
    std::size_t longest = 0;
    for (const std::string& line : lines) {
        escaped.push_back(terminal_text(line));
        longest = std::max(longest, longest_backtick_run(escaped.back()));
    }
    const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    std::string out = indent + fence + info + "\n";
    for (const std::string& line : escaped)
        out += indent + line + "\n";
    return out + indent + fence + "\n";
}

std::string xml_text(std::string_view text)
{
    std::string out;
    for (const char c : terminal_text(text, true)) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string dot_string(std::string_view text)
{
    std::string out = "\"";
    for (const char c : terminal_text(text)) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

void escape_control_characters(nlohmann::json& value, bool keep_newlines, bool newlines_everywhere)
{
    if (value.is_string()) {
        auto& text = value.get_ref<std::string&>();
        text = terminal_text(text, keep_newlines || newlines_everywhere);
    } else if (value.is_object()) {
        for (auto& [key, item] : value.items())
            escape_control_characters(item, key == "advice" && item.is_string(), newlines_everywhere);
    } else if (value.is_array()) {
        for (auto& item : value)
            escape_control_characters(item, false, newlines_everywhere);
    }
}

} // namespace importscope::report
