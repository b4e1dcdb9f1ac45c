#include "journal/json_line.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

using namespace importscope::journal;
using json_line::Value;

TEST_CASE("the journal's JSON reader reads what nlohmann writes", "[journal]")
{
    const std::string text = "q\"b\\s/ \b\f\n\r\t\x01 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 end";
    const nlohmann::json original = {{"s", text}, {"n", -12}, {"u", 18446744073709551615ULL}, {"f", 0.25},
                                     {"a", {1, "two", nullptr, true, false}}, {"o", {{"k", {{"deep", "x"}}}}}};
    const std::string line = original.dump();
    const Value v = json_line::parse(line);
    REQUIRE(v.type == Value::Type::object);
    REQUIRE(v.members.size() == 6);
    auto member = [&](const std::string& key) -> const Value& {
        for (const auto& [name, value] : v.members)
            if (name == key)
                return value;
        FAIL("no member " << key);
        throw std::logic_error("unreachable");
    };
    CHECK(member("s").text == text);
    CHECK(member("n").number == "-12");
    CHECK(member("u").number == "18446744073709551615");
    CHECK(member("f").number == "0.25");
    const Value& a = member("a");
    REQUIRE(a.items.size() == 5);
    CHECK(a.items[1].text == "two");
    CHECK(a.items[2].type == Value::Type::null);
    CHECK((a.items[3].boolean && !a.items[4].boolean));
    CHECK(member("o").members[0].value.members[0].value.text == "x");

    // \u escapes, surrogate pairs included, become UTF-8.
    CHECK(json_line::parse(R"("\u00e9\u20ac\ud83d\ude00\u0000")").text == std::string("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9) + '\0');
    CHECK(json_line::parse(" \t[ ] \r\n").items.empty());
}

TEST_CASE("the journal's JSON reader refuses what is not JSON, with the reason", "[journal]")
{
    const char* bad[] = {
        "",                      // nothing
        "{\"a\":1",              // unterminated object
        "{\"a\" 1}",             // no colon
        "{a:1}",                 // key not a string
        "[1,]",                  // trailing comma
        "[1 2]",                 // missing comma
        "\"abc",                 // unterminated string
        "\"a\\x\"",              // unknown escape
        "\"\\u12\"",             // short \u
        "\"\\ud800\"",           // lone high surrogate
        "\"\\udc00\"",           // lone low surrogate
        "\"\\ud800\\u0041\"",    // high surrogate without its low half
        "\"a\x01\"",             // raw control character
        "\"\xff\"",              // not UTF-8
        "\"\xc0\xaf\"",          // overlong
        "\"\xed\xa0\x80\"",      // an encoded surrogate
        "\"\xf4\x90\x80\x80\"",  // past U+10FFFF
        "\"\xe2\x82\"",          // cut short
        "01",                    // leading zero
        "-",                     // no digits
        "1.",                    // no fraction digits
        "1e+",                   // no exponent digits
        "tru",                   // unknown literal
        "{} x",                  // text after the value
    };
    for (const char* text : bad) {
        INFO(text);
        CHECK_THROWS_AS(json_line::parse(text), std::invalid_argument);
        CHECK_THROWS_AS(nlohmann::json::parse(text), nlohmann::json::parse_error); // nlohmann agrees
    }
    CHECK_THROWS_WITH(json_line::parse("[1 2]"), Catch::Contains("missing ',' or ']'"));

    // Valid JSON, but nested deeper than any journal line: refused, so that hostile input cannot
    // exhaust the stack.
    const std::string deep = std::string(20, '[') + "1" + std::string(20, ']');
    CHECK_NOTHROW(nlohmann::json::parse(deep));
    CHECK_THROWS_WITH(json_line::parse(deep), Catch::Contains("nesting too deep"));
    const std::string shallow = std::string(8, '[') + "1" + std::string(8, ']');
    CHECK(json_line::parse(shallow).items.size() == 1);
}
