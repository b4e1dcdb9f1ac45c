#include "importscope/util/cache_dir.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace importscope {

namespace fs = std::filesystem;

std::optional<fs::path> cache_directory()
{
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg)
        return fs::path(xdg) / "importscope";
    if (home && *home)
        return fs::path(home) / ".cache" / "importscope";
    return std::nullopt;
}

void prune_cache_files(const fs::path& directory, std::string_view prefix, std::string_view suffix, std::size_t keep)
{
    std::vector<std::pair<fs::file_time_type, fs::path>> entries;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(prefix) && name.ends_with(suffix))
            entries.emplace_back(entry.last_write_time(ec), entry.path());
    }
    if (entries.size() <= keep)
        return;
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = keep; i < entries.size(); ++i)
        fs::remove(entries[i].second, ec);
}

} // namespace importscope
