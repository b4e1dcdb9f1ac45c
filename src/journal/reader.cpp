#include "importscope/journal/reader.hpp"

#include "importscope/journal/run_layout.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <stdexcept>

namespace importscope::journal {

void parse_journal(std::string_view text, std::string_view source, JournalContents& into)
{
    std::size_t line_number = 0;
    std::size_t start = 0;
    FrameTable frames;
    while (start < text.size()) {
        ++line_number;
        const std::size_t newline = text.find('\n', start);
        if (newline == std::string_view::npos) {
            into.problems.push_back(fmt::format(
                "{}: line {} is incomplete (the process ended while writing it); skipped", source, line_number));
            break;
        }
        const std::string_view line = text.substr(start, newline - start);
        start = newline + 1;
        if (line.empty())
            continue;
        try {
            into.events.push_back(decode(line, frames));
        } catch (const std::invalid_argument& e) {
            into.problems.push_back(fmt::format("{}: line {} skipped: {}", source, line_number, e.what()));
        }
    }
}

void read_journal(const std::filesystem::path& path, JournalContents& into)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) {
        into.problems.push_back(fmt::format("{}: cannot read journal: {}", path.string(), std::strerror(errno)));
        return;
    }
    // One read into a buffer of the file's size: journals of a long run are tens of megabytes.
    std::string text(static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0)), '\0');
    in.seekg(0);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    if (into.source.empty())
        into.source = path.filename().string();
    into.bytes += text.size();
    parse_journal(text, path.filename().string(), into);
}

std::vector<JournalContents> read_run_journals(const std::filesystem::path& run_dir)
{
    std::vector<JournalContents> journals;
    for (const auto& path : list_journals(run_dir)) {
        journals.emplace_back();
        read_journal(path, journals.back());
    }
    return journals;
}

} // namespace importscope::journal
