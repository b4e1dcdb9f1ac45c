#include "journal_events.hpp"

#include "importscope/journal/event.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/journal/record_format.hpp"
#include "importscope/journal/shared_journal.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstring>
#include <stdexcept>
#include <string>

using namespace importscope;

namespace {

std::string record_of(const journal::Event& event)
{
    std::string record;
    journal::encode_record_to(record, event);
    return record;
}

/// A stack of a frame written whole and numbered, then one given by the number alone.
journal::ImportBegin begin_with_stack(std::uint64_t seq, std::vector<journal::Frame> stack)
{
    journal::ImportBegin begin;
    begin.pid = 7;
    begin.seq = seq;
    begin.id = seq;
    begin.name = "pkg.m" + std::to_string(seq);
    begin.kind = "source";
    begin.stack = std::move(stack);
    return begin;
}

} // namespace

TEST_CASE("each event's record reads back as the event it was", "[journal][records]")
{
    for (const journal::Event& event : testing::one_of_each_event()) {
        const std::string line = journal::encode_json(event);
        INFO(line);
        const std::string record = record_of(event);
        CHECK(static_cast<std::size_t>(record.front()) == event.index());
        journal::FrameTable frames;
        CHECK(journal::encode_json(journal::decode_record(record, &frames)) == line);
        CHECK(journal::encode_json(journal::decode_record(record, nullptr)) == line);
        // A begin written as it is, without an Event around it, is the same record.
        if (const auto* begin = std::get_if<journal::ImportBegin>(&event)) {
            std::string direct;
            journal::encode_record_to(direct, *begin);
            CHECK(direct == record);
        }
    }
}

TEST_CASE("a record cut short, or with more after its last field, is refused", "[journal][records]")
{
    for (const journal::Event& event : testing::one_of_each_event()) {
        const std::string record = record_of(event);
        INFO(journal::encode_json(event));
        for (std::size_t size = 0; size < record.size(); ++size) {
            journal::FrameTable frames;
            CHECK_THROWS_AS(journal::decode_record(std::string_view(record).substr(0, size), &frames),
                            std::invalid_argument);
        }
        CHECK_THROWS_WITH(journal::decode_record(record + "x", nullptr), "the record has bytes after its last field");
    }
    CHECK_THROWS_WITH(journal::decode_record(std::string(1, '\x7f'), nullptr), "unknown event type 127 in a record");

    // A length past the record's end is refused before anything is made of that size.
    journal::Note note{7, 1, 2, "text"};
    std::string record = record_of(note);
    const std::uint32_t huge = 0xFFFFFFF0U;
    std::memcpy(record.data() + record.size() - 4 - sizeof huge, &huge, sizeof huge);
    CHECK_THROWS_WITH(journal::decode_record(record, nullptr), "record field \"text\" runs past the record's end");

    // A bool is 0 or 1.
    journal::ImportBegin begin = begin_with_stack(1, {});
    std::string flagged = record_of(begin);
    flagged.back() = '\x02'; // `by_path`, the last field
    CHECK_THROWS_WITH(journal::decode_record(flagged, nullptr), "record field \"by_path\" is not a boolean");
}

TEST_CASE("a process start of another format's version is refused, naming both versions", "[journal][records]")
{
    journal::ProcessStart start;
    start.format = journal::k_format_version - 1;
    CHECK_THROWS_WITH(journal::decode_record(record_of(start), nullptr),
                      fmt::format("journal format {} is not supported (this importscope reads format {})",
                                  journal::k_format_version - 1, journal::k_format_version));
    start.format = journal::k_format_version;
    CHECK(std::get<journal::ProcessStart>(journal::decode_record(record_of(start), nullptr)).format ==
          journal::k_format_version);
}

TEST_CASE("a record's stack gives a frame the journal holds by its number", "[journal][records]")
{
    const journal::Frame outer{"/app/main.py", 4, "<module>", "__main__", 1};
    journal::Frame outer_again;
    outer_again.number = 1;
    outer_again.known = true;
    const journal::Frame inner{"/app/pkg/__init__.py", 3, "<module>", "pkg", 2};
    const std::string first = record_of(begin_with_stack(1, {outer}));
    const std::string second = record_of(begin_with_stack(2, {outer_again, inner}));
    CHECK(second.size() < first.size() + inner.file.size() + 20); // the outer frame is a number: 5 bytes

    journal::FrameTable frames;
    journal::decode_record(first, &frames);
    const auto decoded = std::get<journal::ImportBegin>(journal::decode_record(second, &frames));
    REQUIRE(decoded.stack.size() == 2);
    CHECK(decoded.stack[0].file == "/app/main.py");
    CHECK(decoded.stack[0].line == 4);
    CHECK_FALSE(decoded.stack[0].known);
    CHECK(decoded.stack[1].module == "pkg");

    // Without a table, the frame stays its number, as written.
    const auto raw = std::get<journal::ImportBegin>(journal::decode_record(second, nullptr));
    CHECK(raw.stack[0].known);
    CHECK(raw.stack[0].number == 1);
    CHECK(raw.stack[0].file.empty());

    journal::FrameTable fresh;
    CHECK_THROWS_WITH(journal::decode_record(second, &fresh), "frame 1 is not written whole earlier in the journal");
    CHECK_THROWS_WITH(journal::decode_record(first, &frames), "frame 1 is numbered twice");
}

TEST_CASE("a reader that shares the table's frames gets each numbered frame by number, once the table holds it",
          "[journal][records]")
{
    const journal::Frame outer{"/app/main.py", 4, "<module>", "__main__", 1};
    journal::Frame outer_again;
    outer_again.number = 1;
    outer_again.known = true;
    const journal::Frame inner{"/app/pkg/__init__.py", 3, "<module>", "pkg", 2};
    const journal::Frame unnumbered{"/app/pkg/a.py", 7, "<module>", "pkg.a", 0};
    const std::string first = record_of(begin_with_stack(1, {outer}));
    const std::string second = record_of(begin_with_stack(2, {outer_again, inner, unnumbered}));

    journal::FrameTable frames;
    const auto by_number = journal::KnownFrames::by_number;
    const auto one = std::get<journal::ImportBegin>(journal::decode_record(first, &frames, by_number));
    REQUIRE(one.stack.size() == 1);
    CHECK(one.stack[0].known); // written whole, now the table's
    CHECK(one.stack[0].number == 1);
    CHECK(one.stack[0].file.empty());
    CHECK(frames.at(1).file == "/app/main.py");
    CHECK(frames.at(1).line == 4);

    const auto two = std::get<journal::ImportBegin>(journal::decode_record(second, &frames, by_number));
    REQUIRE(two.stack.size() == 3);
    CHECK(two.stack[0].known);
    CHECK(two.stack[0].number == 1);
    CHECK(two.stack[1].known);
    CHECK(two.stack[1].number == 2);
    CHECK(frames.at(2).module == "pkg");
    CHECK(frames.shared(2) == frames.shared(2)); // one object, however often a stack names it
    CHECK_FALSE(two.stack[2].known); // no number: only the stack has it
    CHECK(two.stack[2].file == "/app/pkg/a.py");

    journal::FrameTable fresh;
    CHECK_THROWS_WITH(journal::decode_record(second, &fresh, by_number),
                      "frame 1 is not written whole earlier in the journal");
    CHECK_THROWS_WITH(journal::decode_record(first, &frames, by_number), "frame 1 is numbered twice");
}

TEST_CASE("a frame table holds frames numbered in any order, each number once", "[journal][records]")
{
    // The hooks number a journal's frames 1, 2, 3, ...; a journal of other hands may not.
    journal::FrameTable frames;
    for (const std::uint32_t number : {1U, 2U, 7U, 3U, 4294967295U, 4U, 5U, 6U}) {
        journal::Frame frame{"/f" + std::to_string(number) + ".py", 1, "<module>", "m", number};
        frames.define(std::move(frame));
    }
    for (const std::uint32_t number : {1U, 2U, 3U, 4U, 5U, 6U, 7U, 4294967295U})
        CHECK(frames.at(number).file == "/f" + std::to_string(number) + ".py");
    for (const std::uint32_t number : {1U, 3U, 6U, 7U, 4294967295U}) {
        const journal::Frame again{"/again.py", 1, "<module>", "m", number};
        CHECK_THROWS_WITH(frames.define(again), "frame " + std::to_string(number) + " is numbered twice");
    }
    for (const std::uint32_t number : {0U, 8U, 9U, 4294967294U})
        CHECK_THROWS_WITH(frames.at(number),
                          "frame " + std::to_string(number) + " is not written whole earlier in the journal");
    frames.define(journal::Frame{"/f8.py", 1, "<module>", "m", 8}); // after 7, which came early
    CHECK(frames.at(8).file == "/f8.py");
    CHECK(frames.at(7).file == "/f7.py");
}

TEST_CASE("the records of a journal file and of the shared journal read back as the same events, numbered "
          "frames and all",
          "[journal][records]")
{
    const journal::Frame outer{"/app/main.py", 4, "<module>", "__main__", 1};
    journal::Frame outer_again;
    outer_again.number = 1;
    outer_again.known = true;
    std::vector<journal::Event> events = testing::one_of_each_event();
    events.push_back(begin_with_stack(30, {outer}));
    events.push_back(begin_with_stack(31, {outer_again}));
    const journal::SharedJournal shared(1 << 20);
    journal::SharedJournalWriter writer = shared.writer();
    std::string file = journal::journal_file_of({});
    for (const journal::Event& event : events) {
        REQUIRE(writer.append(journal::framed_record(record_of(event))));
        file += journal::framed_record(record_of(event));
    }
    const std::string_view records = shared.records(journal::SharedJournal::k_header);

    journal::JournalContents read;
    journal::JournalParser parser("journal-7-0.isj", read);
    parser.feed_records(records);
    parser.finish();
    journal::JournalContents from_file;
    journal::parse_journal(file, "journal-8-0.isj", from_file);
    REQUIRE(read.problems.empty());
    REQUIRE(from_file.problems.empty());
    REQUIRE(read.events.size() == events.size());
    REQUIRE(from_file.events.size() == events.size());
    for (std::size_t i = 0; i < events.size(); ++i)
        CHECK(journal::encode_json(from_file.events[i]) == journal::encode_json(read.events[i]));
    CHECK(std::get<journal::ImportBegin>(read.events.back()).stack.at(0).file == "/app/main.py");
    CHECK(journal::journal_file_of(records) == file);

    // A record skipped after it numbered a frame keeps the frame.
    journal::ImportBegin damaged = begin_with_stack(2, {outer});
    std::string bad = record_of(damaged);
    bad.back() = '\x02'; // `by_path`, after the stack: not a boolean
    journal::FrameTable frames;
    CHECK_THROWS_WITH(journal::decode_record(bad, &frames), "record field \"by_path\" is not a boolean");
    CHECK(frames.at(1).file == "/app/main.py");
}

TEST_CASE("the end record a signal handler makes, without allocating, is ProcessEnd's record", "[journal][records]")
{
    journal::EndRecord record;
    journal::encode_end_record(record, {7, 12, 34, 56, "os._exit", 3});
    CHECK_FALSE(record.overflowed());
    journal::ProcessEnd end{7, 12, 34, 56, "os._exit", 3};
    CHECK(record.view() == journal::framed_record(record_of(end)));
    journal::JournalContents read;
    journal::parse_journal(journal::journal_file_of(record.view()), "journal-7-0.isj", read);
    REQUIRE(read.events.size() == 1);
    const auto& decoded = std::get<journal::ProcessEnd>(read.events[0]);
    CHECK(decoded.how == "os._exit");
    CHECK(decoded.code == 3);
    CHECK(decoded.wall_ns == 56);
}
