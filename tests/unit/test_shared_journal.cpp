#include "importscope/journal/event.hpp"
#include "importscope/journal/shared_journal.hpp"
#include "importscope/journal/tail.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

using namespace importscope;
using journal::SharedJournal;

namespace {

std::string line_for(int pid, std::uint64_t seq, std::uint64_t id)
{
    journal::ImportEnd e;
    e.pid = pid;
    e.seq = seq;
    e.id = id;
    e.mono_ns = 1000 + static_cast<std::int64_t>(seq);
    return journal::encode(e);
}

} // namespace

TEST_CASE("the shared journal gives whole lines only, and the rest once the writer has ended", "[shared]")
{
    SharedJournal shared(1 << 20);
    CHECK(shared.name().empty());
    journal::SharedJournalLines lines = shared.lines();
    lines.publish_name("journal-7-0.jsonl");
    CHECK(shared.name() == "journal-7-0.jsonl");

    const std::string first = line_for(7, 1, 1);
    const std::string second = line_for(7, 2, 2);
    REQUIRE(lines.append(first));
    CHECK(shared.complete_lines(SharedJournal::k_header) == first);

    // A line being copied: its newline comes last, and a copy may fill its end before its middle.
    const std::size_t at = SharedJournal::k_header + first.size();
    char* memory = const_cast<char*>(shared.written(0).data()); // the test tears a line as a killed writer would
    std::copy(second.end() - 10, second.end() - 1, memory + at + second.size() - 10);
    CHECK(shared.complete_lines(SharedJournal::k_header) == first);
    std::copy(second.begin(), second.end() - 10, memory + at);
    CHECK(shared.complete_lines(at).empty());
    CHECK(shared.written(at) == second.substr(0, second.size() - 1)); // what a killed writer left
    REQUIRE(lines.append(second));
    CHECK(shared.complete_lines(at) == second);
    CHECK(shared.written(SharedJournal::k_header) == first + second);
}

TEST_CASE("the tail reads the shared journal under its name, instead of the empty file of that name", "[shared]")
{
    const testing::TempDir scratch;
    SharedJournal shared(1 << 20);
    std::vector<std::pair<std::string, std::uint64_t>> seen; // journal, seq
    journal::JournalTail tail(scratch.path, [&](const std::string& name, journal::Event&& e) {
        seen.emplace_back(name, std::get<journal::ImportEnd>(e).seq);
    });
    tail.follow(&shared);

    // The placeholder appears (and is polled) before the worker names the shared journal.
    std::ofstream(scratch.path / "journal-7-0.jsonl").close();
    std::ofstream(scratch.path / "journal-9-0.jsonl") << line_for(9, 1, 1); // a child's file
    tail.poll();
    journal::SharedJournalLines lines = shared.lines();
    lines.publish_name("journal-7-0.jsonl");
    std::size_t end = SharedJournal::k_header;
    for (std::uint64_t seq = 1; seq <= 3; ++seq) {
        const std::string line = line_for(7, seq, seq);
        REQUIRE(lines.append(line));
        end += line.size();
        tail.poll();
    }
    // A last line cut short by the worker's death: no newline, ever.
    const std::string cut = line_for(7, 4, 4);
    char* memory = const_cast<char*>(shared.written(0).data()); // the test tears a line as a killed writer would
    std::copy(cut.begin(), cut.end() - 5, memory + end);
    tail.poll();
    const auto journals = tail.finish();

    const std::vector<std::pair<std::string, std::uint64_t>> expected = {
        {"journal-9-0.jsonl", 1}, {"journal-7-0.jsonl", 1}, {"journal-7-0.jsonl", 2}, {"journal-7-0.jsonl", 3}};
    CHECK(seen == expected);
    REQUIRE(journals.size() == 2);
    CHECK(journals[0].source == "journal-7-0.jsonl"); // in name order, as files would be
    CHECK(journals[0].bytes == end - SharedJournal::k_header + cut.size() - 5);
    REQUIRE(journals[0].problems.size() == 1);
    CHECK_THAT(journals[0].problems[0], Catch::Contains("line 4 is incomplete"));
    CHECK(journals[1].source == "journal-9-0.jsonl");
    CHECK(journals[1].problems.empty());
}

TEST_CASE("a shared journal that filled up is a problem of its journal", "[shared]")
{
    const testing::TempDir scratch;
    SharedJournal shared(1 << 20);
    journal::SharedJournalLines lines = shared.lines();
    lines.publish_name("journal-7-0.jsonl");
    const std::string line = line_for(7, 1, 1);
    REQUIRE(lines.append(line));
    CHECK_FALSE(shared.overflowed());
    CHECK_FALSE(lines.append(std::string((1 << 20) - SharedJournal::k_header - line.size() + 1, 'x'))); // too big
    CHECK(shared.overflowed());
    CHECK(shared.name() == "journal-7-0.jsonl");

    journal::JournalTail tail(scratch.path);
    tail.follow(&shared);
    const auto journals = tail.finish();
    REQUIRE(journals.size() == 1);
    CHECK(journals[0].events.size() == 1);
    REQUIRE(journals[0].problems.size() == 1);
    CHECK_THAT(journals[0].problems[0], Catch::Contains("filled its 1 MiB of shared memory"));
}
