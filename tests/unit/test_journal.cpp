#include "journal_builder.hpp"

#include <catch2/catch.hpp>

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
    const std::string text = R"({"ev":"process","format":2,"pid":1,"ppid":0,"argv":[],"executable":"","python":"",)"
                             R"("cwd":"","start_method":"main","wall_ns":0,"t":0})"
                             "\n";
    journal::JournalContents contents;
    journal::parse_journal(text, "j", contents);
    CHECK(contents.events.empty());
    REQUIRE(contents.problems.size() == 1);
    CHECK(contents.problems[0].find("journal format 2 is not supported") != std::string::npos);
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

TEST_CASE("a missing journal file is a problem, not an exception", "[journal]")
{
    journal::JournalContents contents;
    journal::read_journal("/nonexistent/importscope/journal.jsonl", contents);
    CHECK(contents.events.empty());
    REQUIRE(contents.problems.size() == 1);
    CHECK(contents.problems[0].find("cannot read journal") != std::string::npos);
}
