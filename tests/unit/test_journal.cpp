#include "journal_builder.hpp"
#include "journal_events.hpp"

#include "importscope/analysis/model.hpp"
#include "importscope/journal/record_format.hpp"
#include "importscope/util/utf8.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

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

/// The event's whole record, frame included.
std::string whole_record_of(const journal::Event& event)
{
    std::string payload;
    journal::encode_record_to(payload, event);
    return journal::framed_record(payload);
}

/// The event as a journal's record reads it back.
journal::Event round_trip(const journal::Event& event)
{
    journal::JournalContents contents;
    journal::parse_journal(journal::journal_file_of(whole_record_of(event)), "j", contents);
    if (contents.events.size() != 1)
        throw std::invalid_argument(contents.problems.empty() ? "no event" : contents.problems[0]);
    return std::move(contents.events[0]);
}

} // namespace

TEST_CASE("each event's JSON, for journal dump, is one compact object that another parser reads", "[journal]")
{
    const std::vector<journal::Event> events = testing::one_of_each_event();
    for (const auto& event : events) {
        const std::string json = journal::encode_json(event);
        INFO(json);
        CHECK(json.find('\n') == std::string::npos);
        const auto parsed = nlohmann::json::parse(json);
        CHECK(json.starts_with(R"({"ev":")"));
        CHECK(parsed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size() == json.size());
    }
    const auto decoded_begin = std::get<journal::ImportBegin>(round_trip(events[2]));
    CHECK(decoded_begin.stack.size() == 2);
    CHECK(decoded_begin.stack[1].line == 9);
    CHECK_FALSE(decoded_begin.identity);
    CHECK(decoded_begin.name.find("\xc3\xa9 \xe2\x82\xac \xef\xbf\xbd") != std::string::npos); // é € U+FFFD
    CHECK(std::get<journal::ExtensionLoad>(round_trip(events[1])).identity->dev == ~0ULL);
    CHECK(std::get<journal::ImportEnd>(round_trip(events[4])).existing_module == "lxml.etree");
    // Every declared field is written, empty or not; an optional one only when it is there.
    CHECK(journal::encode_json(events[3]).find(R"("existing":"")") != std::string::npos);
    CHECK(journal::encode_json(events[4]).find(R"("error")") == std::string::npos);
    CHECK(journal::encode_json(events[2]).find(R"("identity")") == std::string::npos);
    CHECK(journal::encode_json(events[1]).find(R"("identity":{"dev":18446744073709551615,"ino":1})") !=
          std::string::npos);
    const auto decoded_owners = std::get<journal::TypeOwners>(round_trip(events[9]));
    REQUIRE(decoded_owners.owners.size() == 2);
    CHECK(decoded_owners.owners[0].pybind11);
    CHECK(decoded_owners.owners[0].identity == journal::FileIdentity{1, 2});
    const auto decoded_no_build = std::get<journal::NoBuild>(round_trip(events[12]));
    CHECK(decoded_no_build.files.size() == 2);
    CHECK(decoded_no_build.stack.size() == 2);
    CHECK(std::get<journal::Caught>(round_trip(events[13])).frame.line == 12);
}

TEST_CASE("a record cut short by a crash is skipped and reported", "[journal]")
{
    testing::JournalBuilder b;
    b.extension("a", "/x/a.so", journal::FileIdentity{1, 2});
    const std::string whole = b.bytes();
    for (std::size_t cut = 1; cut < b.records().back().size(); ++cut) {
        INFO("the last record cut at byte " << cut);
        journal::JournalContents contents;
        journal::parse_journal(whole.substr(0, whole.size() - b.records().back().size() + cut), "main.isj", contents);
        CHECK(contents.events.size() == 1);
        REQUIRE(contents.problems.size() == 1);
        CHECK_THAT(contents.problems[0], Catch::StartsWith("main.isj: record 2 is incomplete"));
    }
}

TEST_CASE("a damaged record is skipped with its number and reason, and the records after it are read",
          "[journal]")
{
    testing::JournalBuilder b;
    b.damaged().extension("a", "/x/a.so", journal::FileIdentity{1, 2});
    journal::JournalContents contents;
    journal::parse_journal(b.bytes(), "j", contents);
    CHECK(contents.events.size() == 2);
    REQUIRE(contents.problems.size() == 1);
    CHECK(contents.problems[0] == "j: record 2 skipped: unknown event type 127 in a record");
}

TEST_CASE("bytes that are no record end the reading of a journal, named with where they start", "[journal]")
{
    testing::JournalBuilder b;
    for (const std::string& garbage : {std::string(8, '\0'), std::string("\xff\xff\xff\xff-not a record")}) {
        const std::string bytes = b.bytes() + garbage + b.records().back();
        journal::JournalContents contents;
        journal::parse_journal(bytes, "j", contents);
        CHECK(contents.events.size() == 1);
        REQUIRE(contents.problems.size() == 1);
        CHECK(contents.problems[0] ==
              fmt::format("j: the bytes after record 1 (from byte {}) are not a journal record; the rest of the "
                          "journal is skipped",
                          b.bytes().size()));
    }
}

TEST_CASE("a journal of another format's version, or a file that is no journal, is named and skipped", "[journal]")
{
    testing::JournalBuilder b;
    std::string other_version = b.bytes();
    const std::uint32_t version = journal::k_file_version + 1;
    std::memcpy(other_version.data() + journal::k_file_magic.size(), &version, sizeof version);
    journal::JournalContents contents;
    journal::parse_journal(other_version, "journal-5-0.isj", contents);
    CHECK(contents.events.empty());
    REQUIRE(contents.problems.size() == 1);
    CHECK(contents.problems[0] == fmt::format("journal-5-0.isj: a journal of format version {}, and this importscope "
                                              "reads version {}; skipped",
                                              version, journal::k_file_version));

    // A journal of JSON lines (formats 1 and 2), and a header cut short.
    const std::string lines = R"({"ev":"process","format":2,"pid":1})"
                              "\n";
    journal::JournalContents old;
    journal::parse_journal(lines, "journal-6-0.jsonl", old);
    CHECK(old.events.empty());
    REQUIRE(old.problems.size() == 1);
    CHECK_THAT(old.problems[0], Catch::StartsWith("journal-6-0.jsonl: not an importscope journal"));
    journal::JournalContents cut;
    journal::parse_journal(b.bytes().substr(0, 10), "journal-7-0.isj", cut);
    REQUIRE(cut.problems.size() == 1);
    CHECK_THAT(cut.problems[0], Catch::StartsWith("journal-7-0.isj: the journal's header is incomplete"));
    // An empty file (a journal just created) holds nothing, and says nothing.
    journal::JournalContents empty;
    journal::parse_journal("", "journal-8-0.isj", empty);
    CHECK(empty.problems.empty());
}

TEST_CASE("a journal read a byte at a time gives what it gives read at once", "[journal]")
{
    testing::JournalBuilder b;
    b.extension_import("a._C", "/x/a.so", journal::FileIdentity{1, 2}).damaged().uncaught("E", "m");
    const std::string bytes = b.bytes() + b.records().back().substr(0, 7);
    journal::JournalContents at_once;
    journal::parse_journal(bytes, "j", at_once);
    journal::JournalContents by_bytes;
    journal::JournalParser parser("j", by_bytes);
    for (char byte : bytes)
        parser.feed(std::string_view(&byte, 1));
    parser.finish();
    CHECK(by_bytes.problems == at_once.problems);
    CHECK(at_once.problems.size() == 2);
    REQUIRE(by_bytes.events.size() == at_once.events.size());
    for (std::size_t i = 0; i < at_once.events.size(); ++i)
        CHECK(journal::encode_json(by_bytes.events[i]) == journal::encode_json(at_once.events[i]));
}

TEST_CASE("invalid UTF-8 in a path is replaced, not fatal", "[journal]")
{
    journal::ExtensionLoad e;
    e.pid = 1;
    e.seq = 1;
    e.name = "m";
    e.path = "/tmp/\xff\xfe/m.so";
    const auto decoded = std::get<journal::ExtensionLoad>(round_trip(e));
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
    journal::read_journal("/nonexistent/importscope/journal.isj", contents);
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

    const std::string records = whole_record_of(first) + whole_record_of(second);
    journal::JournalContents contents;
    journal::parse_journal(journal::journal_file_of(records), "j", contents);
    REQUIRE(contents.problems.empty());
    REQUIRE(contents.events.size() == 2);
    const auto& decoded = std::get<journal::ImportBegin>(contents.events[1]);
    REQUIRE(decoded.stack.size() == 2);
    CHECK(decoded.stack[0].file == "/app/main.py");
    CHECK(decoded.stack[0].line == 4);
    CHECK(decoded.stack[0].module == "__main__");
    CHECK_FALSE(decoded.stack[0].known);
    CHECK(decoded.stack[1].line == 3);
    // A dump gives the frame whole, its number (`id`) first.
    CHECK(journal::encode_json(decoded).find(
              R"("stack":[{"id":1,"file":"/app/main.py","line":4,"function":"<module>","module":"__main__"},)") !=
          std::string::npos);

    // Each journal numbers its own frames: the second record alone refers to a frame it does not have.
    journal::JournalContents alone;
    journal::parse_journal(journal::journal_file_of(whole_record_of(second)), "k", alone);
    CHECK(alone.events.empty());
    REQUIRE(alone.problems.size() == 1);
    CHECK(alone.problems[0].find("k: record 1 skipped: frame 1 is not written whole earlier in the journal") !=
          std::string::npos);

    // A number given to two frames is a damaged journal: the second record is skipped.
    journal::JournalContents twice;
    journal::parse_journal(journal::journal_file_of(whole_record_of(first) + whole_record_of(first)), "t", twice);
    CHECK(twice.events.size() == 1);
    REQUIRE(twice.problems.size() == 1);
    CHECK(twice.problems[0].find("frame 1 is numbered twice") != std::string::npos);
}

TEST_CASE("every control character is escaped, wherever it stands in a long string", "[journal]")
{
    // A writer that scans strings eight bytes at a time must still escape each of them.
    for (int c = 0; c < 0x20; ++c)
        for (std::size_t offset = 0; offset < 40; ++offset) {
            journal::Note note;
            note.text = std::string(offset, 'a') + static_cast<char>(c) + std::string(40, 'b');
            const std::string json = journal::encode_json(note);
            INFO("character " << c << " at " << offset);
            CHECK(std::none_of(json.begin(), json.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20; }));
            CHECK(nlohmann::json::parse(json).at("text") == note.text);
        }
}

TEST_CASE("the finalizing event is its stamp alone, and marks its process", "[journal]")
{
    journal::Finalizing finalizing;
    finalizing.pid = 5;
    finalizing.seq = 3;
    finalizing.mono_ns = 4;
    CHECK(journal::encode_json(finalizing) == "{\"ev\":\"finalizing\",\"pid\":5,\"seq\":3,\"t\":4}");
    const journal::Event decoded = round_trip(finalizing);
    REQUIRE(std::holds_alternative<journal::Finalizing>(decoded));
    CHECK(std::get<journal::Finalizing>(decoded).seq == 3);

    testing::JournalBuilder b(5);
    b.end(b.begin("pkg", "source", "/s/pkg/__init__.py"));
    CHECK_FALSE(analysis::build_model(b.contents()).processes.at(0).finalizing);
    b.finalizing();
    CHECK(analysis::build_model(b.contents()).processes.at(0).finalizing);
}
