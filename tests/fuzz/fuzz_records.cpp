// libFuzzer target: the shared journal's records (shared_journal.hpp, event_record.cpp) and
// everything after them. The target's own code can write into that memory: no bytes may crash the
// reader or throw, and the journal file written out of them reads back as the same events.

#include "check_journal.hpp"

#include "importscope/journal/record_format.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace importscope;
    const std::string_view records(reinterpret_cast<const char*>(data), size);
    journal::JournalContents contents;
    contents.source = "journal-1-0.isj";
    journal::JournalParser parser(contents.source, contents);
    parser.feed_records(records);
    parser.finish();
    fuzz::check_journal(contents);

    // Written out as a file (a kept run directory): the same events. (The file's budget of frame
    // copies is larger by its header's bytes alone.)
    journal::JournalContents file;
    journal::parse_journal(journal::journal_file_of(records), "file", file);
    if (file.events.size() != contents.events.size())
        std::abort();
    return 0;
}
