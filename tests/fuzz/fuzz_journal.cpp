// libFuzzer target: the journal parser and everything after it (model, analysis, report), which
// read what crashed or hostile processes wrote. No input may crash them or throw.

#include "check_journal.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace importscope;
    journal::JournalContents contents;
    contents.source = "journal-1-0.jsonl";
    journal::parse_journal(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz", contents);
    fuzz::check_journal(contents);
    return 0;
}
