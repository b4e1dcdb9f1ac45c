#include "importscope/util/json_text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace importscope {

JsonText::JsonText(std::string& out, Layout layout, std::size_t open)
    : m_out(out), m_layout(layout), m_first(open, false)
{
    if (!m_first.empty())
        m_first.back() = true;
}

void JsonText::begin(char bracket)
{
    m_out += bracket;
    m_first.push_back(true);
}

void JsonText::end(char bracket)
{
    const bool empty = m_first.back();
    m_first.pop_back();
    if (!empty && m_layout == Layout::indented) {
        m_out += '\n';
        m_out.append(2 * m_first.size(), ' ');
    }
    m_out += bracket;
}

void JsonText::item()
{
    const bool first = m_first.back();
    m_first.back() = false;
    if (m_layout == Layout::compact) {
        if (!first)
            m_out += ',';
        return;
    }
    m_out += first ? "\n" : ",\n";
    m_out.append(2 * m_first.size(), ' ');
}

void JsonText::key(std::string_view name)
{
    item();
    m_out += '"';
    m_out += name;
    m_out += m_layout == Layout::compact ? "\":" : "\": ";
}

void JsonText::string(std::string_view text)
{
    // The common case, printable ASCII without quotes or backslashes, needs no escaping.
    const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte >= 0x20 && byte < 0x80 && c != '"' && c != '\\';
    });
    if (plain) {
        m_out += '"';
        m_out += text;
        m_out += '"';
        return;
    }
    m_out += nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonText::number(double value)
{
    m_out += nlohmann::json(value).dump();
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
