#include "importscope/journal/run_layout.hpp"

#include <algorithm>
#include <dirent.h>
#include <string_view>

namespace importscope::journal {

std::vector<std::filesystem::path> list_journals(const std::filesystem::path& run_dir)
{
    // readdir() itself: the journal tail lists the run directory every 20 ms, and a path object
    // per entry cost it more than the rest of an idle poll.
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(run_dir.c_str())) {
        while (const dirent* entry = ::readdir(dir)) {
            const std::string_view name = entry->d_name;
            if (name.starts_with(k_journal_prefix) && name.ends_with(k_journal_suffix))
                names.emplace_back(name);
        }
        ::closedir(dir);
    }
    std::sort(names.begin(), names.end());
    std::vector<std::filesystem::path> journals;
    journals.reserve(names.size());
    for (const auto& name : names)
        journals.push_back(run_dir / name);
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
