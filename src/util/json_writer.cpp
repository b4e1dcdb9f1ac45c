#include "importscope/util/json_writer.hpp"

#include <fmt/compile.h>

#include <array>
#include <cmath>
#include <cstdint>

namespace importscope::json_writer {

namespace {

/// Appends `value` as number(double) writes it when it is a whole number of millionths from 0.001
/// to 10^9, as a duration in milliseconds made from nanoseconds is; false for another value.
/// Such a value is the double nearest to a decimal of at most 15 digits, which no other decimal
/// of as few digits rounds to: that decimal, trailing zeros dropped, is its shortest form, found
/// without the shortest-form search.
bool append_millionths(std::string& out, double value)
{
    if (!(value >= 1e-3 && value < 1e9))
        return false;
    const auto millionths = static_cast<std::uint64_t>(std::llround(value * 1e6));
    if (static_cast<double>(millionths) / 1e6 != value)
        return false;
    const fmt::format_int whole(millionths / 1'000'000);
    out.append(whole.data(), whole.size());
    std::uint64_t fraction = millionths % 1'000'000;
    std::array<char, 7> decimals{'.', '0', '0', '0', '0', '0', '0'};
    for (std::size_t i = 6; fraction != 0; --i, fraction /= 10)
        decimals[i] = static_cast<char>('0' + fraction % 10);
    std::size_t size = decimals.size();
    while (size > 2 && decimals[size - 1] == '0')
        --size; // ".0" stays: the number reads back as a double
    out.append(decimals.data(), size);
    return true;
}

} // namespace

void Writer::number(double value)
{
    if (!std::isfinite(value)) {
        null();
        return;
    }
    before_value();
    if (append_millionths(*m_out, value))
        return;
    const std::size_t start = m_out->size();
    fmt::format_to(std::back_inserter(*m_out), FMT_COMPILE("{}"), value);
    if (m_out->find_first_of(".e", start) == std::string::npos)
        m_out->append(".0");
}

void Writer::close(char bracket)
{
    const bool empty = !m_filled;
    if (m_depth > 0)
        --m_depth;
    if (m_layout == Layout::indented && !empty)
        new_line(m_depth);
    m_out->push_back(bracket);
    m_filled = true; // the one that held it has it as an item or a key's value
    m_after_key = false;
}

void Writer::separate()
{
    if (m_filled)
        m_out->push_back(',');
    if (m_layout == Layout::indented)
        new_line(m_depth);
    m_filled = true;
}

void Writer::new_line(std::size_t depth)
{
    m_out->push_back('\n');
    m_out->append(2 * depth, ' ');
}

void Writer::quoted(std::string_view text)
{
    if (!needs_escape(text)) {
        plain_quoted(text);
        return;
    }
    static constexpr char k_hex[] = "0123456789ABCDEF";
    m_out->push_back('"');
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
        case '"': m_out->append("\\\""); break;
        case '\\': m_out->append("\\\\"); break;
        case '\b': m_out->append("\\b"); break;
        case '\f': m_out->append("\\f"); break;
        case '\n': m_out->append("\\n"); break;
        case '\r': m_out->append("\\r"); break;
        case '\t': m_out->append("\\t"); break;
        default:
            if (byte < 0x20) {
                const char escaped[] = {'\\', 'u', '0', '0', k_hex[byte >> 4], k_hex[byte & 0xF]};
                m_out->append(escaped, sizeof escaped);
            } else {
                m_out->push_back(c);
            }
        }
    }
    m_out->push_back('"');
}

} // namespace importscope::json_writer
