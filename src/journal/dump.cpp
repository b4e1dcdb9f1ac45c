#include "importscope/journal/dump.hpp"

#include "importscope/journal/reader.hpp"
#include "importscope/journal/record_format.hpp"
#include "importscope/journal/run_layout.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <optional>
#include <variant>

namespace importscope::journal {

namespace {

/// The file's first bytes, checked for a header before anything is printed.
void check_header(const std::filesystem::path& path)
{
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        throw Error(fmt::format("{} is a directory; give one of its {}*{} files", path.string(), k_journal_prefix,
                                k_journal_suffix));
    const std::optional<std::string> start = read_from(path, 0);
    if (!start)
        throw system_error(fmt::format("cannot read journal {}", path.string()), errno);
    std::uint32_t version = 0;
    switch (check_file_header(start->substr(0, k_file_header_size), version)) {
    case HeaderCheck::ok:
        return;
    case HeaderCheck::incomplete:
        throw Error(fmt::format("{} is not an importscope journal: {} bytes, fewer than a journal's header", path.string(),
                                start->size()));
    case HeaderCheck::not_a_journal:
        throw Error(fmt::format("{} is not an importscope journal (it does not start with \"{}\")", path.string(),
                                k_file_magic.substr(0, k_file_magic.size() - 1)));
    case HeaderCheck::other_version:
        throw Error(fmt::format("{} is a journal of format version {}, and this importscope reads version {}; dump "
                                "it with the importscope that wrote it",
                                path.string(), version, k_file_version));
    }
}

} // namespace

DumpResult dump_journal(const std::filesystem::path& path, const std::function<void(std::string_view)>& out)
{
    check_header(path);
    DumpResult result;
    JournalContents contents;
    std::string line;
    JournalParser parser(path.filename().string(), contents, [&](Event&& event, const FrameTable&) {
        // Every frame whole: a frame the journal gave by number is shown as its first use wrote it.
        line = encode_json(event);
        line.push_back('\n');
        out(line);
        ++result.events;
    });
    for (std::uint64_t offset = 0;;) {
        const std::optional<std::string> bytes = read_from(path, offset);
        if (!bytes)
            throw system_error(fmt::format("cannot read journal {}", path.string()), errno);
        if (bytes->empty())
            break;
        offset += bytes->size();
        parser.feed(*bytes);
    }
    parser.finish();
    result.problems = std::move(contents.problems);
    return result;
}

} // namespace importscope::journal
