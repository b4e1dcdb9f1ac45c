#pragma once

// The journal's own JSON reader. A journal line is small, flat and written by importscope itself,
// but the supervisor reads hundreds of thousands of them after a long run, and nlohmann's parser
// spends most of that time building trees of std::map. This reader builds vectors instead, keeps
// numbers as the text they were written as, and refuses what is not JSON (bad escapes, invalid
// UTF-8, nesting deeper than a journal ever goes) with the reason.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace importscope::journal::json_line {

struct Member;

struct Value {
    enum class Type : std::uint8_t { null, boolean, number, string, array, object };

    Type type = Type::null;
    bool boolean = false;
    std::string_view number; ///< the number's text, inside the parsed line
    std::string text;        ///< a string, unescaped
    std::vector<Value> items;
    std::vector<Member> members; ///< in the order written
};

struct Member {
    std::string key;
    Value value;
};

/// Parses one JSON value that is the whole of `line` (surrounding whitespace allowed). Numbers
/// point into `line`, which must outlive the result. Throws std::invalid_argument with the reason.
Value parse(std::string_view line);

} // namespace importscope::journal::json_line
