// util/json_writer.hpp: the text the report's records and `journal dump` are written in.

#include "importscope/util/json_writer.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace importscope;
using json_writer::Layout;
using json_writer::Writer;

namespace {

std::string object_of(const std::string& key, const std::string& value, Layout layout, bool literal = false)
{
    std::string text;
    Writer writer(text, layout);
    writer.start_object();
    if (literal)
        writer.literal_key(key);
    else
        writer.key(key);
    writer.string(value);
    writer.end_object();
    return text;
}

} // namespace

TEST_CASE("the JSON writer escapes what JSON must and copies the rest, at every offset of a word", "[json]")
{
    // Every byte value (those of 0x80 and above inside a valid two-byte sequence) at every offset
    // of an eight-byte word and of the tail after it, as a value and as a key, compact and indented.
    std::vector<std::string> texts = {"", "plain", "/usr/lib/python3/dist-packages/torch/_C.so"};
    for (int c = 1; c < 0xC0; ++c)
        for (std::size_t offset = 0; offset < 20; ++offset) {
            const std::string piece = c < 0x80 ? std::string(1, static_cast<char>(c))
                                               : std::string("\xC3") + static_cast<char>(c);
            texts.push_back(std::string(offset, 'a') + piece + std::string(20 - offset, 'b'));
        }
    texts.push_back(std::string("nul\0inside", 10));
    for (const std::string& text : texts) {
        INFO("text " << nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
        const bool must_escape = std::any_of(text.begin(), text.end(), [](char ch) {
            return static_cast<unsigned char>(ch) < 0x20 || ch == '"' || ch == '\\';
        });
        CHECK(json_writer::needs_escape(text) == must_escape);
        for (const Layout layout : {Layout::compact, Layout::indented}) {
            const std::string written = object_of(text, text, layout);
            CHECK(nlohmann::json::parse(written) == nlohmann::json{{text, text}});
            const std::string inside = layout == Layout::compact ? written : written.substr(4, written.size() - 6);
            CHECK(std::none_of(inside.begin(), inside.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20; }));
            if (!must_escape) {
                CHECK(written == object_of(text, text, layout, true));
                CHECK(written.find(text) != std::string::npos); // copied as it is
            }
        }
    }
    CHECK(object_of("k", std::string("\b\f\n\r\t\x01\x1f\"\\", 9), Layout::compact) ==
          R"({"k":"\b\f\n\r\t\u0001\u001F\"\\"})");
}

TEST_CASE("the JSON writer lays out compact and indented text, nested, empty and at the top", "[json]")
{
    // Each key written both ways: a name at run time, and one made at compile time (LiteralKey).
    const auto write = [](Layout layout, bool known) {
        std::string text;
        Writer w(text, layout);
        w.start_object();
        known ? w.known_key("a") : w.literal_key("a");
        w.number(1);
        known ? w.known_key("b") : w.literal_key("b");
        w.start_array();
        w.boolean(true);
        w.null();
        w.start_object();
        w.end_object();
        w.start_array();
        w.end_array();
        w.end_array();
        known ? w.known_key("c") : w.literal_key("c");
        w.number(std::uint64_t{18446744073709551615ULL});
        known ? w.known_key("d") : w.literal_key("d");
        w.number(std::int64_t{-9223372036854775807LL - 1});
        w.end_object();
        return text;
    };
    for (const bool known : {false, true}) {
        INFO("keys made at compile time: " << known);
        CHECK(write(Layout::compact, known) ==
              R"({"a":1,"b":[true,null,{},[]],"c":18446744073709551615,"d":-9223372036854775808})");
        CHECK(write(Layout::indented, known) ==
              "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null,\n    {},\n    []\n  ],\n"
              "  \"c\": 18446744073709551615,\n  \"d\": -9223372036854775808\n}");
    }
}

TEST_CASE("the JSON writer's doubles read back the same, stay doubles, and NaN is null", "[json]")
{
    for (const double value : {0.0, 1.5, -2.0, 0.1, 1e-7, 123456789.125, 1e300, 5e-324}) {
        std::string text;
        Writer(text).number(value);
        INFO(text);
        const nlohmann::json read = nlohmann::json::parse(text);
        CHECK(read.is_number_float());
        CHECK(read.get<double>() == value);
    }
    for (const double value : {std::nan(""), std::numeric_limits<double>::infinity()}) {
        std::string text;
        Writer(text).number(value);
        CHECK(text == "null");
    }
}

TEST_CASE("the JSON writer's doubles are the shortest form that reads back the same, whatever path writes them",
          "[json]")
{
    // The reference: fmt's shortest form, with ".0" where it would read as an integer.
    const auto shortest = [](double value) {
        std::string text = fmt::format("{}", value);
        if (text.find_first_of(".e") == std::string::npos)
            text += ".0";
        return text;
    };
    const auto written = [](double value) {
        std::string text;
        Writer(text).number(value);
        return text;
    };
    std::mt19937_64 random(42);
    // Durations in milliseconds from nanoseconds, as the report's records have them, of every size.
    for (int i = 0; i < 200'000; ++i) {
        const std::uint64_t nanoseconds = random() >> (random() % 64);
        const double value = static_cast<double>(nanoseconds) / 1e6;
        INFO(nanoseconds);
        REQUIRE(written(value) == shortest(value));
    }
    // Any double, by its bits, and the edges of the millionths' range.
    for (int i = 0; i < 200'000; ++i) {
        const std::uint64_t bits = random();
        double value = 0;
        std::memcpy(&value, &bits, sizeof value);
        if (!std::isfinite(value))
            continue;
        INFO(bits);
        REQUIRE(written(value) == shortest(value));
    }
    for (const double value : {1e-3, 0.000999999, 0.001000001, 1e9, 999999999.999999, 999999999.9999999, 0.5, 1.0,
                               100.0, 0.1, 0.3, 12.3456789, 1e-4, 123456.000001}) {
        INFO(value);
        CHECK(written(value) == shortest(value));
    }
    CHECK(written(0.07714) == "0.07714");
    CHECK(written(5.0) == "5.0");
}

TEST_CASE("a record written by a second writer into the first one's text sits in its array", "[json]")
{
    std::string text;
    Writer tree(text, Layout::indented);
    tree.start_object();
    tree.literal_key("modules");
    tree.start_array();
    for (int i = 0; i < 2; ++i) {
        tree.item_follows();
        Writer record(text);
        record.start_object();
        record.literal_key("n");
        record.number(i);
        record.end_object();
    }
    tree.end_array();
    tree.end_object();
    CHECK(text == "{\n  \"modules\": [\n    {\"n\":0},\n    {\"n\":1}\n  ]\n}");
}
