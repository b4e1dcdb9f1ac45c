// libFuzzer target: the shared journal's records (shared_journal.hpp, event_record.cpp) and
// everything after them. The target's own code can write into that memory: no bytes may crash the
// reader or throw, and the journal written out of them is lines the journal parser reads.

#include "check_journal.hpp"

#include "importscope/journal/shared_journal.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace importscope;
    const std::string_view records(reinterpret_cast<const char*>(data), size);
    journal::JournalContents contents;
    contents.source = "journal-1-0.jsonl";
    journal::JournalParser parser(contents.source, contents);
    parser.feed_records(records);
    parser.finish();
    fuzz::check_journal(contents);

    // Written out as a file: when every record was read, and the lines too, as many events. (A
    // record skipped after it numbered a frame keeps the frame, as a line does; written out, the
    // record is left out with its frame, and the lines after it that use the frame are skipped.
    // The lines' budget of frame copies follows their size, not the records'.)
    journal::JournalContents lines;
    journal::parse_journal(journal::lines_of_records(records), "lines", lines);
    if (contents.problems.empty() && lines.problems.empty() && lines.events.size() != contents.events.size())
        std::abort();
    return 0;
}
