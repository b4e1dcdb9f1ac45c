#include "journal/json_line.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

using namespace importscope::journal;
using json_line::Value;

namespace {

/// An object node's members as (key, value node) pairs.
std::vector<std::pair<std::string, std::size_t>> members_of(const json_line::Document& d, std::size_t object)
{
    std::vector<std::pair<std::string, std::size_t>> out;
    d.each_member(object, [&](const Value& key, std::size_t value) { out.emplace_back(json_line::string(key), value); });
    return out;
}

std::vector<std::size_t> items_of(const json_line::Document& d, std::size_t array)
{
    std::vector<std::size_t> out;
    d.each_item(array, [&](std::size_t item) { out.push_back(item); });
    return out;
}

} // namespace

TEST_CASE("the journal's JSON reader reads what nlohmann writes", "[journal]")
{
    const std::string text = "q\"b\\s/ \b\f\n\r\t\x01 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 end";
    const nlohmann::json original = {{"s", text}, {"n", -12}, {"u", 18446744073709551615ULL}, {"f", 0.25},
                                     {"a", {1, "two", nullptr, true, false}}, {"o", {{"k", {{"deep", "x"}}}}},
                                     {"e", nlohmann::json::object()}, {"plain", "/a/b.py"}};
    const std::string line = original.dump();
    json_line::Document d;
    d.parse(line);
    REQUIRE(d.value(d.root()).type == Value::Type::object);
    const auto members = members_of(d, d.root());
    REQUIRE(members.size() == 8);
    auto member = [&](const std::string& key) -> std::size_t {
        for (const auto& [name, node] : members)
            if (name == key)
                return node;
        FAIL("no member " << key);
        throw std::logic_error("unreachable");
    };
    CHECK(d.value(member("s")).escaped);
    CHECK(json_line::string(d.value(member("s"))) == text);
    CHECK_FALSE(d.value(member("plain")).escaped);
    CHECK(d.value(member("plain")).text == "/a/b.py"); // a view of the line, nothing to unescape
    CHECK(d.value(member("n")).text == "-12");
    CHECK(d.value(member("u")).text == "18446744073709551615");
    CHECK(d.value(member("f")).text == "0.25");
    const auto a = items_of(d, member("a"));
    REQUIRE(a.size() == 5);
    CHECK(json_line::string(d.value(a[1])) == "two");
    CHECK(d.value(a[2]).type == Value::Type::null);
    CHECK((d.value(a[3]).type == Value::Type::boolean && d.value(a[3]).text == "true" && d.value(a[4]).text == "false"));
    const auto o = members_of(d, member("o"));
    REQUIRE(o.size() == 1);
    const auto k = members_of(d, o[0].second);
    REQUIRE(k.size() == 1);
    CHECK(k[0].first == "deep");
    CHECK(json_line::string(d.value(k[0].second)) == "x");
    CHECK(members_of(d, member("e")).empty());

    // \u escapes, surrogate pairs included, become UTF-8; an escaped key still has its name.
    d.parse(R"({"n\u0061me":"\u00e9\u20ac\ud83d\ude00\u0000"})");
    bool named = false;
    d.each_member(d.root(), [&](const Value& key, std::size_t value) {
        named = json_line::key_is(key, "name");
        CHECK(json_line::string(d.value(value)) == std::string("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9) + '\0');
    });
    CHECK(named);
    d.parse(" \t[ ] \r\n");
    CHECK(items_of(d, d.root()).empty());
    // Whitespace wherever JSON allows it, and brackets inside strings.
    d.parse(" { \"a\" : [ 1 , \"]\\\"}\" ] , \"b\" :{ } } ");
    const auto spaced = members_of(d, d.root());
    REQUIRE(spaced.size() == 2);
    const auto spaced_items = items_of(d, spaced[0].second);
    REQUIRE(spaced_items.size() == 2);
    CHECK(d.value(spaced_items[0]).text == "1");
    CHECK(json_line::string(d.value(spaced_items[1])) == "]\"}");
    CHECK(d.value(spaced[1].second).type == Value::Type::object);
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
        CHECK_THROWS_AS(json_line::check(text), std::invalid_argument);
        CHECK_THROWS_AS(nlohmann::json::parse(text), nlohmann::json::parse_error); // nlohmann agrees
    }
    CHECK_THROWS_WITH(json_line::check("[1 2]"), Catch::Contains("missing ',' or ']'"));

    // Valid JSON, but nested deeper than any journal line: refused, so that hostile input cannot
    // exhaust the stack.
    const std::string deep = std::string(20, '[') + "1" + std::string(20, ']');
    CHECK_NOTHROW(nlohmann::json::parse(deep));
    CHECK_THROWS_WITH(json_line::check(deep), Catch::Contains("nesting too deep"));
    const std::string shallow = std::string(8, '[') + "1" + std::string(8, ']');
    json_line::Document d;
    d.parse(shallow);
    CHECK(items_of(d, d.root()).size() == 1);
}
