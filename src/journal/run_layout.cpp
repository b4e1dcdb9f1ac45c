#include "importscope/journal/run_layout.hpp"

#include <algorithm>

namespace importscope::journal {

std::vector<std::filesystem::path> list_journals(const std::filesystem::path& run_dir)
{
    std::vector<std::filesystem::path> journals;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(run_dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(k_journal_prefix) && name.ends_with(k_journal_suffix))
            journals.push_back(entry.path());
    }
    std::sort(journals.begin(), journals.end());
    return journals;
}

std::string join_patterns(const std::vector<std::string>& patterns)
{
    std::string joined;
    for (const auto& p : patterns) {
        if (!joined.empty())
            joined += '\n';
        joined += p;
    }
    return joined;
}

std::vector<std::string> split_patterns(const std::string& joined)
{
    std::vector<std::string> patterns;
    std::size_t start = 0;
    while (start <= joined.size()) {
        const std::size_t end = std::min(joined.find('\n', start), joined.size());
        if (end > start)
            patterns.push_back(joined.substr(start, end - start));
        start = end + 1;
    }
    return patterns;
}

} // namespace importscope::journal
