#pragma once

// The journal's own JSON reader. A journal line is small, flat and written by importscope itself,
// but the supervisor reads hundreds of thousands of them after a long run: this reader checks a
// line once, then hands out its values as views of the line's text, so that only what lands in an
// event is ever copied. It refuses what is not JSON (bad escapes, invalid UTF-8, nesting deeper
// than a journal ever goes) with the reason.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace importscope::journal::json_line {

/// A value of a checked line, not yet converted: a view of its text, which the line holds.
struct Value {
    enum class Type : std::uint8_t { null, boolean, number, string, array, object };

    Type type = Type::null;
    /// string: between the quotes, escapes as written; number: as written; true, false, null: the
    /// word; array, object: the whole of it, brackets included.
    std::string_view text;
    bool escaped = false; ///< a string with backslash escapes: read it with string()
};

/// A value of a checked line and, after it, the values inside it: `end` is the index of the first
/// node that is not inside it. An object's nodes are its keys and values in turn.
struct Node {
    Value value;
    std::uint32_t end = 0;
};

/// One checked line as a flat list of its values in the order written, made in one pass and
/// without an allocation per value (the storage is kept from one line to the next).
class Document {
public:
    /// Checks that `line` is one JSON value, with nothing but whitespace around it. Throws
    /// std::invalid_argument with the reason. The values point into `line`.
    void parse(std::string_view line);

    std::size_t root() const { return 0; }
    const Value& value(std::size_t node) const { return m_nodes[node].value; }
    /// The index of the first node after `node` and the values inside it.
    std::size_t end(std::size_t node) const { return m_nodes[node].end; }

    /// Calls on_member(key, value node) for each member of an object node, in the order written.
    template <typename OnMember>
    void each_member(std::size_t object, OnMember&& on_member) const
    {
        for (std::size_t at = object + 1; at < m_nodes[object].end; at = m_nodes[at + 1].end)
            on_member(m_nodes[at].value, at + 1);
    }

    /// Calls on_item(node) for each item of an array node.
    template <typename OnItem>
    void each_item(std::size_t array, OnItem&& on_item) const
    {
        for (std::size_t at = array + 1; at < m_nodes[array].end; at = m_nodes[at].end)
            on_item(at);
    }

private:
    std::vector<Node> m_nodes;
};

/// Checks that `text` is one JSON value, like Document::parse, without keeping anything.
void check(std::string_view text);

/// A string's text, unescaped (a copy of the view when there is nothing to unescape).
std::string string(const Value& value);

/// Whether an object key is `name`.
inline bool key_is(const Value& key, std::string_view name)
{
    return key.escaped ? string(key) == name : key.text == name;
}

} // namespace importscope::journal::json_line
