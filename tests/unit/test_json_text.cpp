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
