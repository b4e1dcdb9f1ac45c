#include "importscope/journal/event.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/journal/record_format.hpp"
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

journal::ImportEnd end_event(int pid, std::uint64_t seq)
{
    journal::ImportEnd e;
    e.pid = pid;
    e.seq = seq;
    e.id = seq;
    e.mono_ns = 1000 + static_cast<std::int64_t>(seq);
    return e;
}

std::string payload_for(int pid, std::uint64_t seq)
{
    std::string payload;
    journal::encode_record_to(payload, end_event(pid, seq));
    return payload;
}

/// The whole record, as a writer hands it over.
std::string record_for(int pid, std::uint64_t seq)
{
    return journal::framed_record(payload_for(pid, seq));
}

/// A child's journal file holding `records`.
std::string file_of(const std::string& records)
{
    return journal::journal_file_of(records);
}

/// The memory a killed writer left: a record's form and payload at `offset`, without its size.
void tear_record(const SharedJournal& shared, std::size_t offset, const std::string& payload)
{
    char* memory = const_cast<char*>(shared.records(0).data()); // the test writes as a writer would
    memory[offset + 4] = static_cast<char>(journal::RecordForm::binary);
    std::copy(payload.begin(), payload.end(), memory + offset + 5);
}

/// The shared journal read to its end by a tail of an otherwise empty run directory.
journal::JournalContents read_alone(const testing::TempDir& scratch, const SharedJournal& shared)
{
    journal::JournalTail tail(scratch.path);
    tail.follow(&shared);
    auto journals = tail.finish();
    REQUIRE(journals.size() == 1);
    return std::move(journals[0]);
}

} // namespace

TEST_CASE("the shared journal gives whole records only, each once its size is written", "[shared]")
{
    SharedJournal shared(1 << 20);
    CHECK(shared.name().empty());
    journal::SharedJournalWriter writer = shared.writer();
    writer.publish_name("journal-7-0.isj");
    CHECK(shared.name() == "journal-7-0.isj");
    CHECK(shared.records(SharedJournal::k_header).empty());

    const std::string first = payload_for(7, 1);
    REQUIRE(writer.append(journal::framed_record(first)));
    std::string_view records = shared.records(SharedJournal::k_header);
    const std::size_t at = SharedJournal::k_header + records.size();
    CHECK(at % 4 == 0);
    CHECK(records == journal::framed_record(first)); // as a file holds it
    journal::Record taken;
    REQUIRE(journal::take_record(records, taken) == journal::Take::record);
    CHECK(taken.form == journal::RecordForm::binary);
    CHECK(taken.payload == first);
    CHECK(journal::take_record(records, taken) == journal::Take::incomplete);

    // A record being copied is not there until its size is: a killed writer leaves it cut short.
    const std::string second = payload_for(7, 2);
    CHECK_FALSE(shared.cut_short(at));
    tear_record(shared, at, second);
    CHECK(shared.records(at).empty());
    CHECK(shared.cut_short(at));
    REQUIRE(writer.append(journal::framed_record(second)));
    std::string_view rest = shared.records(at);
    REQUIRE(journal::take_record(rest, taken) == journal::Take::record);
    CHECK(taken.payload == second);

    // Written out (a kept run directory), the records are a journal file as a child writes one.
    const std::string written_out = journal::journal_file_of(shared.records(SharedJournal::k_header));
    journal::JournalContents read;
    journal::parse_journal(written_out, "journal-7-0.isj", read);
    CHECK(read.problems.empty());
    CHECK(read.events.size() == 2);
}

TEST_CASE("the tail reads the shared journal under its name, instead of the empty file of that name", "[shared]")
{
    const testing::TempDir scratch;
    SharedJournal shared(1 << 20);
    std::vector<std::pair<std::string, std::uint64_t>> seen; // journal, seq
    journal::JournalTail tail(scratch.path, [&](const std::string& name, journal::Event&& e, const journal::FrameTable&) {
        seen.emplace_back(name, std::get<journal::ImportEnd>(e).seq);
    });
    tail.follow(&shared);

    // The placeholder appears (and is polled) before the worker names the shared journal.
    std::ofstream(scratch.path / "journal-7-0.isj").close();
    std::ofstream(scratch.path / "journal-9-0.isj") << file_of(record_for(9, 1)); // a child's file
    tail.poll();
    const std::uint64_t child_bytes = tail.bytes_read();
    CHECK(child_bytes > 0);
    tail.poll(); // nothing new: what tells the supervisor that the run is idle
    CHECK(tail.bytes_read() == child_bytes);
    journal::SharedJournalWriter writer = shared.writer();
    writer.publish_name("journal-7-0.isj");
    for (std::uint64_t seq = 1; seq <= 3; ++seq) {
        const std::uint64_t before = tail.bytes_read();
        REQUIRE(writer.append(record_for(7, seq)));
        tail.poll();
        CHECK(tail.bytes_read() > before);
    }
    // A last record cut short by the worker's death: no size, ever.
    const std::size_t end = SharedJournal::k_header + shared.records(SharedJournal::k_header).size();
    tear_record(shared, end, payload_for(7, 4));
    tail.poll();
    const auto journals = tail.finish();

    const std::vector<std::pair<std::string, std::uint64_t>> expected = {
        {"journal-9-0.isj", 1}, {"journal-7-0.isj", 1}, {"journal-7-0.isj", 2}, {"journal-7-0.isj", 3}};
    CHECK(seen == expected);
    REQUIRE(journals.size() == 2);
    CHECK(journals[0].source == "journal-7-0.isj"); // in name order, as files would be
    CHECK(journals[0].bytes == end - SharedJournal::k_header);
    REQUIRE(journals[0].problems.size() == 1);
    CHECK_THAT(journals[0].problems[0], Catch::Contains("record 4 is incomplete"));
    CHECK(journals[1].source == "journal-9-0.isj");
    CHECK(journals[1].problems.empty());
}

TEST_CASE("a record that is no event is a problem of its own, and the records after it are read", "[shared]")
{
    const testing::TempDir scratch;
    SharedJournal shared(1 << 20);
    journal::SharedJournalWriter writer = shared.writer();
    writer.publish_name("journal-7-0.isj");
    REQUIRE(writer.append(record_for(7, 1)));
    REQUIRE(writer.append(journal::framed_record("\x03garbage")));
    std::string other_form = record_for(7, 3);
    other_form[4] = '?';
    REQUIRE(writer.append(other_form));
    REQUIRE(writer.append(record_for(7, 4)));

    const journal::JournalContents read = read_alone(scratch, shared);
    CHECK(read.events.size() == 2);
    REQUIRE(read.problems.size() == 2);
    CHECK_THAT(read.problems[0], Catch::StartsWith("journal-7-0.isj: record 2 skipped: record field"));
    CHECK_THAT(read.problems[1], Catch::Contains("record 3 skipped: a record of an unknown form"));
}

TEST_CASE("a shared journal that filled up is a problem of its journal", "[shared]")
{
    const testing::TempDir scratch;
    SharedJournal shared(1 << 20);
    journal::SharedJournalWriter writer = shared.writer();
    writer.publish_name("journal-7-0.isj");
    const std::string record = record_for(7, 1);
    REQUIRE(writer.append(record));
    CHECK_FALSE(shared.overflowed());
    const std::size_t left = (1 << 20) - SharedJournal::k_header - shared.records(SharedJournal::k_header).size();
    CHECK_FALSE(writer.append(journal::framed_record(std::string(left - 4, 'x')))); // too big by its form byte
    CHECK(shared.records(SharedJournal::k_header).size() == (1 << 20) - SharedJournal::k_header - left);
    CHECK(shared.overflowed());
    CHECK(shared.name() == "journal-7-0.isj");

    const journal::JournalContents read = read_alone(scratch, shared);
    CHECK(read.events.size() == 1);
    REQUIRE(read.problems.size() == 1);
    CHECK_THAT(read.problems[0], Catch::Contains("filled its 1 MiB of shared memory"));
}

TEST_CASE("a shared journal filled record by record keeps every record it took, in order", "[shared]")
{
    // A capacity that is no multiple of the chunks the writer asks the kernel for ahead of its
    // records, so that the last ask stops at the end of the memory.
    const testing::TempDir scratch;
    constexpr std::size_t capacity = (std::size_t{1} << 20) + 300;
    SharedJournal shared(capacity);
    journal::SharedJournalWriter writer = shared.writer();
    writer.publish_name("journal-7-0.isj");
    std::uint64_t taken = 0;
    while (writer.append(record_for(7, taken + 1)))
        ++taken;
    CHECK(shared.overflowed());
    CHECK(SharedJournal::k_header + shared.records(SharedJournal::k_header).size() + record_for(7, taken + 1).size() >
          capacity);

    const journal::JournalContents read = read_alone(scratch, shared);
    REQUIRE(read.events.size() == taken);
    for (std::uint64_t seq = 1; seq <= taken; ++seq)
        CHECK(std::get<journal::ImportEnd>(read.events[seq - 1]).seq == seq);
}
