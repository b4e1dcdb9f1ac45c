#include "importscope/report/escape.hpp"

#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>
#include <vector>

using namespace importscope::report;

namespace {

/// Text of these bytes: the bidi controls are spelt by their bytes, never in a literal, which
/// would make this source itself misleading to read.
std::string bytes(std::initializer_list<int> values)
{
    std::string text;
    for (const int value : values)
        text += static_cast<char>(value);
    return text;
}

const std::string k_rlo = bytes({0xe2, 0x80, 0xae});  // U+202E RIGHT-TO-LEFT OVERRIDE
const std::string k_lri = bytes({0xe2, 0x81, 0xa6});  // U+2066 LEFT-TO-RIGHT ISOLATE
const std::string k_pdi = bytes({0xe2, 0x81, 0xa9});  // U+2069 POP DIRECTIONAL ISOLATE
const std::string k_lsep = bytes({0xe2, 0x80, 0xa8}); // U+2028 LINE SEPARATOR
const std::string k_csi = bytes({0xc2, 0x9b});        // U+009B, C1's CSI

/// Strings a target can put into a module name, a path or an exception message.
const std::vector<std::string> k_hostile = {
    "a\nimportscope: no findings",
    "\x1b[2J\x1b[H",
    "bell\x07 and \r return",
    "\x1b]0;title\x07",
    "c1 " + k_csi + "2J csi",
    "bidi " + k_rlo + "txt.exe",
    "isolate " + k_lri + " x " + k_pdi,
    "line" + k_lsep + "sep",
    "bad \xff\xc0\x9b utf-8",
    "\n## No findings, all clear\n",
    "![x](http://e/x.png) <img src=x> a|b",
    "``` fence ``` `` ` ",
    "1. list\n- item\n> quote\n    code",
    "tab\there\x7f del",
};

bool has_raw_control(const std::string& text, bool newline_allowed = false)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && !(newline_allowed && c == '\n')) || c == 0x7f)
            return true;
        if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f)
            return true;
    }
    return text.find(k_rlo) != std::string::npos || text.find(k_lri) != std::string::npos ||
           text.find(k_lsep) != std::string::npos;
}

} // namespace

TEST_CASE("terminal text makes every control, C1 and bidi character visible", "[escape]")
{
    for (const std::string& text : k_hostile) {
        CAPTURE(text);
        CHECK_FALSE(has_raw_control(terminal_text(text)));
        CHECK(terminal_text(terminal_text(text)) == terminal_text(text)); // escaping twice changes nothing
    }
    CHECK(terminal_text("a\nb\x1b[2J\x07\r\t") == "a\\nb\\x1b[2J\\x07\\r\\t");
    CHECK(terminal_text(k_csi + "x" + k_rlo) == "\\u009bx\\u202e");
    CHECK(terminal_text("\xff") == "\\xff");
    CHECK(terminal_text("a\nb", true) == "a\nb");
}

TEST_CASE("ordinary text, UTF-8 included, is unchanged for a terminal", "[escape]")
{
    for (const std::string text : {"deep_gemm._C", "/home/u/caf\xc3\xa9/x.so", "\xe6\x97\xa5\xe6\x9c\xac",
                                   "sys.modules[\"a\"] (see #1)", "emoji \xf0\x9f\x90\x8d"})
        CHECK(terminal_text(text) == text);
}

TEST_CASE("text over several lines is indented after its first line", "[escape]")
{
    CHECK(terminal_lines("fix\nimportscope: no findings\x1b", "  ") == "fix\n  importscope: no findings\\x1b");
    CHECK(terminal_lines("one line", "  ") == "one line");
}

TEST_CASE("Markdown text is one run of plain text", "[escape]")
{
    for (const std::string& text : k_hostile) {
        CAPTURE(text);
        const std::string md = markdown_text(text);
        CHECK(md.find('\n') == std::string::npos);
        CHECK_FALSE(has_raw_control(md));
        for (const char c : std::string("`*_[]<>|&!"))
            for (std::size_t at = md.find(c); at != std::string::npos; at = md.find(c, at + 1))
                CHECK((at > 0 && md[at - 1] == '\\'));
    }
    CHECK(markdown_text("## No findings") == "\\## No findings");
    CHECK(markdown_text("12. item") == "12\\. item");
    CHECK(markdown_text("- item") == "\\- item");
    CHECK(markdown_text("a|b <img> ![x](y)") == "a\\|b \\<img\\> \\!\\[x\\](y)");
    CHECK(markdown_text("plain text, with (parens) and a.b") == "plain text, with (parens) and a.b");
}

TEST_CASE("a Markdown code span's fence is longer than any backtick run in it", "[escape]")
{
    CHECK(markdown_code("a.b") == "`a.b`");
    CHECK(markdown_code("a`b") == "``a`b``");
    CHECK(markdown_code("``x") == "``` ``x ```");
    CHECK(markdown_code("a\nb") == "`a\\nb`");
    CHECK(markdown_code("a|b") == "`a|b`");
    CHECK(markdown_code("a|b", true) == "`a\\|b`");
}

TEST_CASE("a Markdown code block's fence is longer than any backtick run in it", "[escape]")
{
    CHECK(markdown_fence({"x"}, "  ", "py") == "  ```py\n  x\n  ```\n");
    CHECK(markdown_fence({"```", "a\nb"}) == "````\n```\na\\nb\n````\n");
}

TEST_CASE("XML and DOT text is escaped for its format", "[escape]")
{
    CHECK(xml_text("<a href='x'>&\"\x1b\n") == "&lt;a href=&apos;x&apos;&gt;&amp;&quot;\\x1b\n");
    CHECK(dot_string("a\"b\\c\nd\x1b") == "\"a\\\"b\\\\c\\\\nd\\\\x1b\"");
    for (const std::string& text : k_hostile) {
        CHECK_FALSE(has_raw_control(xml_text(text), true));
        CHECK_FALSE(has_raw_control(dot_string(text)));
    }
}
