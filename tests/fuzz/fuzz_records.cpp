// libFuzzer target: the shared journal's records (shared_journal.hpp, event_record.cpp) and
// everything after them. The target's own code can write into that memory: no bytes may crash the
// reader or throw, and a journal written out of them is lines the journal parser reads.

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

    // Written out as a file: each record read back is a line that reads back as the same event.
    journal::JournalContents lines;
    journal::parse_journal(journal::lines_of_records(records), "lines", lines);
    if (lines.events.size() < contents.events.size())
        std::abort();
    return 0;
}
