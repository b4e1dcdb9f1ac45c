// libFuzzer target: a journal file (its header, then records) and everything after it (model,
// analysis, report), which read what crashed or hostile processes wrote. No input may crash them
// or throw; read in pieces, it gives what it gives read at once.

#include "check_journal.hpp"

#include "importscope/journal/record_format.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace importscope;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    journal::JournalContents contents;
    contents.source = "journal-1-0.isj";
    journal::parse_journal(bytes, "fuzz", contents);
    fuzz::check_journal(contents);

    // As a tail reads a growing file: in pieces cut anywhere (here, every 7 bytes).
    journal::JournalContents pieces;
    journal::JournalParser parser("fuzz", pieces);
    for (std::size_t at = 0; at < bytes.size(); at += 7)
        parser.feed(bytes.substr(at, 7));
    parser.finish();
    if (pieces.problems != contents.problems || pieces.events.size() != contents.events.size())
        std::abort();
    return 0;
}
