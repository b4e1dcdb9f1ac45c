#include "importscope/util/json_text.hpp"
#include "importscope/util/plain_ascii.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace importscope;

TEST_CASE("the plain prefix stops at the first byte a JSON string must escape or check", "[json]")
{
    // Every position of the word-at-a-time scan, and every kind of byte that ends the prefix.
    for (const char stop : {'"', '\\', '\x00', '\x1f', '\x80', '\xff', '\n'}) {
        for (std::size_t at = 0; at < 20; ++at) {
            std::string text(20, 'a');
            text[at] = stop;
            INFO("byte " << static_cast<int>(static_cast<unsigned char>(stop)) << " at " << at);
            CHECK(plain_ascii_prefix(text) == at);
        }
    }
    // A word holding more than one such byte, or bytes a borrow can flag falsely (just above 0x20,
    // just above a quote): the first one still ends the prefix.
    using namespace std::string_literals;
    for (const std::string& tail : {"\x00\x21\"\\"s, "\x1f !#"s, "\"#\x00\x80"s, "\x80\x00\x01"s, "\\]\x1f"s}) {
        for (std::size_t at = 0; at < 12; ++at) {
            const std::string text = std::string(at, 'b') + tail + std::string(9, 'c');
            INFO("at " << at << ", tail of " << tail.size());
            CHECK(plain_ascii_prefix(text) == at);
        }
    }
    CHECK(plain_ascii_prefix("") == 0);
    CHECK(plain_ascii_prefix(" ~/site-packages/x.py") == 21); // 0x20 and 0x7e are plain
    CHECK(plain_ascii_prefix(std::string(17, '\x7f')) == 17);  // DEL needs no escape in JSON
}

TEST_CASE("strings are written as nlohmann writes them", "[json]")
{
    for (const std::string& text : {std::string("/a/b.py"), std::string("q\"b\\c\td\x01"), std::string("caf\xc3\xa9 \xff"),
                                   std::string(40, 'x') + "\"" + std::string(9, 'y'), std::string()}) {
        std::string out;
        JsonText json(out, JsonText::Layout::compact);
        json.string(text);
        CHECK(out == nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
}

TEST_CASE("numbers are written as nlohmann writes them", "[json]")
{
    for (const double value : {16.141641, 0.5, 100.0, 1e-06, 1e21, 123456789.125, -0.0}) {
        std::string out;
        JsonText json(out, JsonText::Layout::compact);
        json.number(value);
        CHECK(out == nlohmann::json(value).dump());
    }
}

TEST_CASE("objects and arrays are laid out as nlohmann lays them out, compact and indented", "[json]")
{
    // Keys and strings short and long (past what is put together on the stack), nesting deep
    // enough that the indentation does not fit there either, empty containers.
    const std::string long_key(150, 'k');
    const std::string long_text(300, 't');
    nlohmann::json expected = nlohmann::json::object();
    nlohmann::json* inner = &expected;
    for (int depth = 0; depth < 70; ++depth) {
        (*inner)["a"] = "short";
        (*inner)[long_key] = long_text;
        (*inner)["list"] = nlohmann::json::array({1, "two", nlohmann::json::object(), nlohmann::json::array()});
        inner = &(*inner)["z"];
    }
    *inner = nlohmann::json::object();

    for (const auto layout : {JsonText::Layout::compact, JsonText::Layout::indented}) {
        std::string out;
        JsonText json(out, layout);
        for (int depth = 0; depth < 70; ++depth) {
            json.begin_object();
            json.key("a");
            json.string("short");
            json.key(long_key);
            json.string(long_text);
            json.key("list");
            json.begin_array();
            json.item();
            json.integer(1);
            json.item();
            json.string("two");
            json.item();
            json.begin_object();
            json.end_object();
            json.item();
            json.begin_array();
            json.end_array();
            json.end_array();
            json.key("z");
        }
        json.begin_object();
        json.end_object();
        for (int depth = 0; depth < 70; ++depth)
            json.end_object();
        CHECK(out == expected.dump(layout == JsonText::Layout::compact ? -1 : 2));
    }
}
