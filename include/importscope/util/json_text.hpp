#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
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

    /// Continues text that has `open` brackets open already, the innermost one still empty unless
    /// `innermost_empty` says otherwise.
    JsonText(std::string& out, Layout layout, std::size_t open = 0, bool innermost_empty = true);

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
        std::array<char, 24> digits; // NOLINT(cppcoreguidelines-pro-type-member-init): written by to_chars
        const auto result = std::to_chars(digits.data(), digits.data() + digits.size(), value);
        m_out.append(digits.data(), result.ptr);
    }
    void number(double value);
    void strings(const std::vector<std::string>& values);
    /// A whole value's text, as this writer would have laid it out at this depth.
    void raw(std::string_view text) { m_out += text; }

    /// How many brackets are open.
    std::size_t depth() const { return m_first.size(); }

private:
    static constexpr std::size_t k_short = 120; ///< keys and strings up to this long are put together on the stack

    void begin(char bracket);
    void end(char bracket);
    /// The spaces that start a line inside the innermost bracket (none when compact).
    std::size_t indentation() const { return m_layout == Layout::indented ? 2 * m_first.size() : 0; }
    /// Writes what comes before the next member or item into `text` (room for 2 + `spaces`): the
    /// comma unless the bracket is still empty, then, when indented, a line break and `spaces`
    /// spaces. Returns its length.
    std::size_t separator(char* text, std::size_t spaces);

    std::string& m_out;
    Layout m_layout;
    std::vector<unsigned char> m_first; ///< per open bracket: nothing written inside it yet (1)
};

} // namespace importscope
