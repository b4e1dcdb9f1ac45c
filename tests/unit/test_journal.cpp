#include "journal_builder.hpp"
#include "journal_events.hpp"

#include "importscope/analysis/model.hpp"
#include "importscope/util/json_writers.hpp"
#include "importscope/util/utf8.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <rapidjson/stringbuffer.h>

#include <algorithm>

using namespace importscope;

TEST_CASE("every event kind survives encode and decode", "[journal]")
{
    testing::JournalBuilder b(42);
    const auto id = b.begin("pkg._C", "extension", "/site/pkg/_C.so", journal::FileIdentity{7, 99});
    b.extension("pkg._C", "/site/pkg/_C.so", journal::FileIdentity{7, 99});
    b.end(id, journal::ExceptionInfo{"ImportError", "boom", "tb"});
    b.uncaught("RuntimeError", "late");

    const auto contents = b.contents();
    REQUIRE(contents.problems.empty());
    REQUIRE(contents.events.size() == 5);
    const auto& start = std::get<journal::ProcessStart>(contents.events[0]);
    CHECK(start.pid == 42);
    CHECK(start.python_version == "3.11.7");
    const auto& begin = std::get<journal::ImportBegin>(contents.events[1]);
    CHECK(begin.name == "pkg._C");
    CHECK(begin.identity == journal::FileIdentity{7, 99});
    REQUIRE(begin.stack.size() == 1);
    CHECK(begin.stack[0].file == "/src/importer.py");
    const auto& end = std::get<journal::ImportEnd>(contents.events[3]);
    REQUIRE(end.error);
    CHECK(end.error->type == "ImportError");
    CHECK(std::get<journal::UncaughtException>(contents.events[4]).exception.message == "late");
}

namespace {

/// An event's declared keys, and whether each is required.
struct KeyList {
    std::vector<std::pair<std::string, bool>> keys;
    template <typename T>
    void required(std::string_view key, const T&)
    {
        keys.emplace_back(key, true);
    }
    template <typename T>
    void optional(std::string_view key, const T&)
    {
        keys.emplace_back(key, false);
    }
    void identity(const std::optional<journal::FileIdentity>&)
    {
        keys.emplace_back("dev", false);
        keys.emplace_back("ino", false);
    }
};

} // namespace

TEST_CASE("each event is one canonical JSON line that decodes to what was encoded", "[journal]")
{
    const std::vector<journal::Event> events = testing::one_of_each_event();
    for (const auto& event : events) {
        const std::string line = journal::encode(event);
        INFO(line);
        REQUIRE(line.back() == '\n');
        REQUIRE(line.find('\n') == line.size() - 1);
        // Compact JSON that another parser reads as well, "ev" first and no key twice.
        const auto parsed = nlohmann::json::parse(line);
        CHECK(line.starts_with(R"({"ev":")"));
        CHECK(parsed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size() + 1 == line.size());
        // Decoding gives back an event of the same kind that encodes to the same line.
        const journal::Event decoded = journal::decode(std::string_view(line).substr(0, line.size() - 1));
        CHECK(decoded.index() == event.index());
        CHECK(journal::encode(decoded) == line);
        // The reader takes the fields the writer declares: a line without a required one is not
        // that event, one without an optional one is.
        KeyList declared;
        std::visit([&](const auto& e) { std::decay_t<decltype(e)>::describe(declared, e); }, event);
        for (const auto& [key, required] : declared.keys) {
            if (!parsed.contains(key))
                continue;
            auto without = parsed;
            without.erase(key);
            INFO("without " << key);
            if (required)
                CHECK_THROWS_WITH(journal::decode(without.dump()), "field \"" + key + "\" is missing");
            else
                CHECK(journal::decode(without.dump()).index() == event.index());
        }
    }
    const auto decoded_begin = std::get<journal::ImportBegin>(journal::decode(journal::encode(events[2])));
    CHECK(decoded_begin.stack.size() == 2);
    CHECK(decoded_begin.stack[1].line == 9);
    CHECK_FALSE(decoded_begin.identity);
    CHECK(decoded_begin.name.find("\xc3\xa9 \xe2\x82\xac \xef\xbf\xbd") != std::string::npos); // é € U+FFFD
    CHECK(std::get<journal::ExtensionLoad>(journal::decode(journal::encode(events[1]))).identity->dev == ~0ULL);
    CHECK(std::get<journal::ImportEnd>(journal::decode(journal::encode(events[4]))).existing_module == "lxml.etree");
    CHECK(journal::encode(events[3]).find("existing") == std::string::npos); // written only when there is one
    const auto decoded_owners = std::get<journal::TypeOwners>(journal::decode(journal::encode(events[9])));
    REQUIRE(decoded_owners.owners.size() == 2);
    CHECK(decoded_owners.owners[0].pybind11);
    CHECK(decoded_owners.owners[0].identity == journal::FileIdentity{1, 2});
    const auto decoded_no_build = std::get<journal::NoBuild>(journal::decode(journal::encode(events[12])));
    CHECK(decoded_no_build.files.size() == 2);
    CHECK(decoded_no_build.stack.size() == 2);
    CHECK(std::get<journal::Caught>(journal::decode(journal::encode(events[13]))).frame.line == 12);
}

TEST_CASE("a line cut short by a crash is skipped and reported", "[journal]")
{
    testing::JournalBuilder b;
    b.extension("a", "/x/a.so", journal::FileIdentity{1, 2});
    std::string text = b.text();
    text += R"({"ev":"ext","pid":100,"seq":9,"na)"; // the process died mid-write

    journal::JournalContents contents;
    journal::parse_journal(text, "main.jsonl", contents);
    CHECK(contents.events.size() == 2);
    REQUIRE(contents.problems.size() == 1);
    CHECK(contents.problems[0].find("main.jsonl: line 3 is incomplete") != std::string::npos);
}

TEST_CASE("malformed lines are skipped with their line number and reason", "[journal]")
{
    const std::string text = "not json\n[1,2]\n{\"ev\":\"mystery\",\"pid\":1}\n{\"ev\":\"ext\",\"pid\":1}\n\n";
    journal::JournalContents contents;
    journal::parse_journal(text, "j", contents);
    CHECK(contents.events.empty());
    REQUIRE(contents.problems.size() == 4);
    CHECK(contents.problems[0].find("line 1") != std::string::npos);
    CHECK(contents.problems[2].find("unknown event \"mystery\"") != std::string::npos);
    CHECK(contents.problems[3].find("line 4") != std::string::npos);
}

TEST_CASE("a journal of a future format is refused line by line", "[journal]")
{
    const std::string text = R"({"ev":"process","format":3,"pid":1,"ppid":0,"argv":[],"executable":"","python":"",)"
                             R"("cwd":"","start_method":"main","wall_ns":0,"t":0})"
                             "\n";
    journal::JournalContents contents;
    journal::parse_journal(text, "j", contents);
    CHECK(contents.events.empty());
    REQUIRE(contents.problems.size() == 1);
    CHECK(contents.problems[0].find("journal format 3 is not supported") != std::string::npos);
}

TEST_CASE("invalid UTF-8 in a path is replaced, not fatal", "[journal]")
{
    journal::ExtensionLoad e;
    e.pid = 1;
    e.seq = 1;
    e.name = "m";
    e.path = "/tmp/\xff\xfe/m.so";
    const std::string line = journal::encode(e);
    const auto decoded = std::get<journal::ExtensionLoad>(journal::decode(line.substr(0, line.size() - 1)));
    CHECK(decoded.path.find("/tmp/") == 0);
    CHECK(decoded.path.find("m.so") != std::string::npos);
}

TEST_CASE("a byte that is not UTF-8 is replaced wherever it stands in a long string", "[journal]")
{
    // At every offset of an eight-byte word and of the tail after it.
    for (std::size_t offset = 0; offset < 20; ++offset) {
        std::string scratch;
        const std::string text = std::string(offset, 'a') + "\xff" + std::string(20 - offset, 'b');
        INFO("offset " << offset);
        CHECK(valid_utf8(text, scratch) == std::string(offset, 'a') + "\xef\xbf\xbd" + std::string(20 - offset, 'b'));
        const std::string valid = std::string(offset, 'a') + "\xc3\xa9" + std::string(20 - offset, 'b');
        CHECK(valid_utf8(valid, scratch) == valid);
    }
}

TEST_CASE("a missing journal file is a problem, not an exception", "[journal]")
{
    journal::JournalContents contents;
    journal::read_journal("/nonexistent/importscope/journal.jsonl", contents);
    CHECK(contents.events.empty());
    REQUIRE(contents.problems.size() == 1);
    CHECK(contents.problems[0].find("cannot read journal") != std::string::npos);
}

TEST_CASE("a numbered frame is written whole once and by number after that", "[journal]")
{
    journal::Frame outer{"/app/main.py", 4, "<module>", "__main__", 1};
    journal::Frame inner{"/app/pkg/__init__.py", 2, "<module>", "pkg", 2};
    journal::ImportBegin first{7, 1, 1, 5, "pkg", "source", "/app/pkg/__init__.py", "", std::nullopt, "L", "pkg", {outer, inner}};
    journal::Frame outer_again;
    outer_again.number = 1;
    outer_again.known = true;
    journal::Frame third{"/app/pkg/__init__.py", 3, "<module>", "pkg", 3};
    journal::ImportBegin second{7, 2, 2, 6, "pkg.b", "source", "/app/pkg/b.py", "", std::nullopt, "L", "pkg", {outer_again, third}};

    const std::string text = journal::encode(first) + journal::encode(second);
    CHECK(text.find(R"("stack":[1,{"file":"/app/pkg/__init__.py","function":"<module>","id":3,)") != std::string::npos);
    journal::JournalContents contents;
    journal::parse_journal(text, "j", contents);
    REQUIRE(contents.problems.empty());
    REQUIRE(contents.events.size() == 2);
    const auto& decoded = std::get<journal::ImportBegin>(contents.events[1]);
    REQUIRE(decoded.stack.size() == 2);
    CHECK(decoded.stack[0].file == "/app/main.py");
    CHECK(decoded.stack[0].line == 4);
    CHECK(decoded.stack[0].module == "__main__");
    CHECK_FALSE(decoded.stack[0].known);
    CHECK(decoded.stack[1].line == 3);

    // Each journal numbers its own frames: the second line alone refers to a frame it does not have.
    journal::JournalContents alone;
    journal::parse_journal(journal::encode(second), "k", alone);
    CHECK(alone.events.empty());
    REQUIRE(alone.problems.size() == 1);
    CHECK(alone.problems[0].find("k: line 1 skipped: frame 1 is not written whole earlier in the journal") !=
          std::string::npos);

    // A number given to two frames is a damaged journal: the second line is skipped.
    journal::JournalContents twice;
    journal::parse_journal(journal::encode(first) + journal::encode(first), "t", twice);
    CHECK(twice.events.size() == 1);
    REQUIRE(twice.problems.size() == 1);
    CHECK(twice.problems[0].find("frame 1 is numbered twice") != std::string::npos);
}

TEST_CASE("a journal of format 1, whole frames only, is still read", "[journal]")
{
    const std::string text =
        R"({"argv":[],"cwd":"/","ev":"process","executable":"/p","format":1,"pid":1,"ppid":0,"python":"3.11.7",)"
        R"("start_method":"main","t":1,"wall_ns":2})"
        "\n"
        R"({"ev":"begin","id":1,"kind":"source","loader":"L","name":"m","origin":"/m.py","parent":"","pid":1,)"
        R"("realpath":"/m.py","seq":1,"stack":[{"file":"/a.py","function":"<module>","line":1,"module":"__main__"}],"t":3})"
        "\n";
    journal::JournalContents contents;
    journal::parse_journal(text, "old", contents);
    CHECK(contents.problems.empty());
    REQUIRE(contents.events.size() == 2);
    CHECK(std::get<journal::ImportBegin>(contents.events[1]).stack.at(0).file == "/a.py");
}

TEST_CASE("a line that is not strict JSON is refused with the parser's reason", "[journal]")
{
    // Each value stands as a note's text: the rest of the line is a well-formed event.
    const char* bad[] = {
        "\"abc",               // unterminated string
        "\"a\\x\"",            // unknown escape
        "\"\\u12\"",           // short \u
        "\"\\ud800\"",         // lone high surrogate
        "\"\\ud800\\u0041\"",  // high surrogate without its low half
        "\"a\x01\"",           // raw control character
        "\"\xff\"",            // not UTF-8
        "\"\xc0\xaf\"",        // overlong
        "\"\xed\xa0\x80\"",    // an encoded surrogate
        "\"\xf4\x90\x80\x80\"", // past U+10FFFF
        "\"\xe2\x82\"",        // cut short
        "01",                  // leading zero
        "tru",                 // unknown literal
    };
    for (const char* value : bad) {
        const std::string line = std::string(R"({"ev":"note","pid":1,"seq":1,"t":0,"text":)") + value + "}";
        INFO(line);
        CHECK_THROWS_WITH(journal::decode(line), Catch::StartsWith("not JSON: "));
    }
    CHECK_THROWS_WITH(journal::decode(R"({"ev":"note","pid":1,"seq":1,"t":0,"text":"x"} x)"),
                      Catch::Contains("not JSON: The document root must not be followed by other values"));
    CHECK(std::get<journal::Note>(journal::decode(R"({"ev":"note","pid":1,"seq":1,"t":0,"text":"\u00e9\ud83d\ude00"})"))
              .text == "\xc3\xa9\xf0\x9f\x98\x80");
    // Nesting as deep as a line can hold is parsed without recursion, then refused as no event.
    const std::string deep = R"({"ev":"note","pid":1,"seq":1,"t":0,"text":)" + std::string(100'000, '[') +
                             std::string(100'000, ']') + "}";
    CHECK_THROWS_WITH(journal::decode(deep), Catch::Contains("field \"text\" is not a string"));
    CHECK_THROWS_WITH(journal::decode(R"({"ev":"note","pid":1.5,"seq":1,"t":0,"text":""})"),
                      Catch::Contains("field \"pid\" is not an integer in range"));
    CHECK_THROWS_WITH(journal::decode(R"({"ev":"note","pid":4294967296,"seq":1,"t":0,"text":""})"),
                      Catch::Contains("field \"pid\" is not an integer in range"));
}

TEST_CASE("the writers copy a string that needs no escape as RapidJSON's own writers write it", "[journal]")
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
    texts.push_back(std::string("a long one with a nul\0", 22));
    for (const std::string& text : texts) {
        const auto size = static_cast<rapidjson::SizeType>(text.size());
        auto write = [&](auto& writer, auto& buffer, auto&& put_key) {
            writer.StartObject();
            put_key(writer);
            writer.String(text.data(), size);
            writer.EndObject();
            return std::string(buffer.GetString(), buffer.GetSize());
        };
        auto key = [&](auto& writer) { writer.Key(text.data(), size); };
        rapidjson::StringBuffer ours_buffer, theirs_buffer, ours_pretty_buffer, theirs_pretty_buffer;
        json_writer::Compact<rapidjson::StringBuffer> ours(ours_buffer);
        rapidjson::Writer<rapidjson::StringBuffer> theirs(theirs_buffer);
        json_writer::Pretty<rapidjson::StringBuffer> ours_pretty(ours_pretty_buffer);
        rapidjson::PrettyWriter<rapidjson::StringBuffer> theirs_pretty(theirs_pretty_buffer);
        INFO("text " << nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
        const std::string ours_text = write(ours, ours_buffer, key);
        const std::string ours_pretty_text = write(ours_pretty, ours_pretty_buffer, key);
        CHECK(ours_text == write(theirs, theirs_buffer, key));
        CHECK(ours_pretty_text == write(theirs_pretty, theirs_pretty_buffer, key));
        CHECK(json_writer::needs_escape(text) == (text.find_first_of(std::string("\"\\\0", 3)) != std::string::npos ||
                                           std::any_of(text.begin(), text.end(), [](char ch) {
                                               return static_cast<unsigned char>(ch) < 0x20;
                                           })));
        if (!json_writer::needs_escape(text)) { // a key of the writer's own is written as Key writes it
            auto literal_key = [&](auto& writer) { writer.LiteralKey(text); };
            rapidjson::StringBuffer literal_buffer, literal_pretty_buffer;
            json_writer::Compact<rapidjson::StringBuffer> literal(literal_buffer);
            json_writer::Pretty<rapidjson::StringBuffer> literal_pretty(literal_pretty_buffer);
            CHECK(write(literal, literal_buffer, literal_key) == ours_text);
            CHECK(write(literal_pretty, literal_pretty_buffer, literal_key) == ours_pretty_text);
        }
    }
}

TEST_CASE("every control character is escaped, wherever it stands in a long string", "[journal]")
{
    // A writer that scans strings 16 bytes at a time must still escape each of them (RapidJSON
    // 1.1's SSE2 scan lets 0x1A to 0x1F through).
    for (int c = 0; c < 0x20; ++c)
        for (std::size_t offset = 0; offset < 40; ++offset) {
            journal::Note note;
            note.text = std::string(offset, 'a') + static_cast<char>(c) + std::string(40, 'b');
            const std::string line = journal::encode(note);
            INFO("character " << c << " at " << offset);
            CHECK(std::none_of(line.begin(), line.end() - 1, [](char ch) { return static_cast<unsigned char>(ch) < 0x20; }));
            CHECK(std::get<journal::Note>(journal::decode(std::string_view(line).substr(0, line.size() - 1))).text ==
                  note.text);
        }
}

TEST_CASE("the finalizing event is one line of its stamp alone, and marks its process", "[journal]")
{
    journal::Finalizing finalizing;
    finalizing.pid = 5;
    finalizing.seq = 3;
    finalizing.mono_ns = 4;
    const std::string line = journal::encode(finalizing);
    CHECK(line == "{\"ev\":\"finalizing\",\"pid\":5,\"seq\":3,\"t\":4}\n");
    const journal::Event decoded = journal::decode(std::string_view(line).substr(0, line.size() - 1));
    REQUIRE(std::holds_alternative<journal::Finalizing>(decoded));
    CHECK(std::get<journal::Finalizing>(decoded).seq == 3);

    testing::JournalBuilder b(5);
    b.end(b.begin("pkg", "source", "/s/pkg/__init__.py"));
    CHECK_FALSE(analysis::build_model(b.contents()).processes.at(0).finalizing);
    b.finalizing();
    CHECK(analysis::build_model(b.contents()).processes.at(0).finalizing);
}
