#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace importscope {

/// Appends JSON text as nlohmann's dump() lays it out, without building a JSON tree: compact
/// (dump(-1)) for journal lines, written on every recorded import, or indented by two (dump(2)) for
/// the report's module records. Keys are written in the order given: callers give them sorted, as
/// nlohmann's objects hold them. Invalid UTF-8 is replaced, as with error_handler_t::replace.
class JsonText {
public:
    enum class Layout { compact, indented };

    /// Continues text that has `open` brackets open already, the innermost one still empty.
    JsonText(std::string& out, Layout layout, std::size_t open = 0);

    void begin_object() { begin('{'); }
    void end_object() { end('}'); }
    void begin_array() { begin('['); }
    void end_array() { end(']'); }

    /// Starts a member: the separator, then the key.
    void key(std::string_view name);
    /// Starts an array element.
    void item();

    void string(std::string_view text);
    void null() { m_out += "null"; }
    void boolean(bool value) { m_out += value ? "true" : "false"; }
    template <typename Integer>
    void integer(Integer value)
    {
        fmt::format_to(std::back_inserter(m_out), "{}", value);
    }
    void number(double value);
    void strings(const std::vector<std::string>& values);

private:
    void begin(char bracket);
    void end(char bracket);

    std::string& m_out;
    Layout m_layout;
    std::vector<bool> m_first; ///< per open bracket: nothing written inside it yet
};

} // namespace importscope
