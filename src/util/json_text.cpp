#include "importscope/util/json_text.hpp"

#include "importscope/util/plain_ascii.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstring>

namespace importscope {

JsonText::JsonText(std::string& out, Layout layout, std::size_t open, bool innermost_empty)
    : m_out(out), m_layout(layout), m_first(open, 0)
{
    if (!m_first.empty())
        m_first.back() = innermost_empty ? 1 : 0;
}

void JsonText::begin(char bracket)
{
    m_out += bracket;
    m_first.push_back(1);
}

void JsonText::end(char bracket)
{
    const bool empty = m_first.back() != 0;
    m_first.pop_back();
    if (!empty && m_layout == Layout::indented) {
        m_out += '\n';
        m_out.append(2 * m_first.size(), ' ');
    }
    m_out += bracket;
}

std::size_t JsonText::separator(char* text, std::size_t spaces)
{
    std::size_t size = 0;
    if (m_first.back() == 0)
        text[size++] = ',';
    m_first.back() = 0;
    if (m_layout == Layout::indented) {
        text[size++] = '\n';
        std::memset(text + size, ' ', spaces);
        size += spaces;
    }
    return size;
}

void JsonText::item()
{
    // One append, with the indentation in it unless deeper than any report goes.
    std::array<char, k_short + 2> text; // NOLINT(cppcoreguidelines-pro-type-member-init): written by separator()
    const std::size_t indent = indentation();
    const std::size_t spaces = indent <= k_short ? indent : 0;
    m_out.append(text.data(), separator(text.data(), spaces));
    if (spaces < indent)
        m_out.append(indent - spaces, ' ');
}

void JsonText::key(std::string_view name)
{
    // One append: the separator, the quoted name and the colon. (A journal line has a dozen keys, a
    // report record twenty.)
    if (name.size() > k_short || indentation() > k_short) {
        item();
        m_out += '"';
        m_out += name;
        m_out.append(m_layout == Layout::compact ? std::string_view("\":") : std::string_view("\": "));
        return;
    }
    std::array<char, 2 * k_short + 8> text; // NOLINT(cppcoreguidelines-pro-type-member-init): written below
    std::size_t size = separator(text.data(), indentation());
    text[size++] = '"';
    std::memcpy(text.data() + size, name.data(), name.size());
    size += name.size();
    text[size++] = '"';
    text[size++] = ':';
    if (m_layout == Layout::indented)
        text[size++] = ' ';
    m_out.append(text.data(), size);
}

void JsonText::string(std::string_view text)
{
    // The common case, printable ASCII without quotes or backslashes, is copied as it is, in one
    // append when it is short.
    if (plain_ascii_prefix(text) == text.size()) {
        if (text.size() <= k_short) {
            std::array<char, k_short + 2> quoted; // NOLINT(cppcoreguidelines-pro-type-member-init): written below
            quoted[0] = '"';
            std::memcpy(quoted.data() + 1, text.data(), text.size());
            quoted[text.size() + 1] = '"';
            m_out.append(quoted.data(), text.size() + 2);
            return;
        }
        m_out.reserve(m_out.size() + text.size() + 2);
        m_out += '"';
        m_out += text;
        m_out += '"';
        return;
    }
    m_out += nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonText::number(double value)
{
    // What nlohmann's serializer does for a double (dump_float), without a JSON value and a
    // serializer per number: "null" for NaN and infinities, else Grisu2's shortest round-trip text.
    if (!std::isfinite(value)) {
        m_out += "null";
        return;
    }
    std::array<char, 64> digits{};
    const char* end = nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), value);
    m_out.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
}

void JsonText::strings(const std::vector<std::string>& values)
{
    begin_array();
    for (const auto& value : values) {
        item();
        string(value);
    }
    end_array();
}

} // namespace importscope
