#pragma once

// importscope's cache directory, where facts that cost a run time to find are kept for later runs
// (the interpreter's fingerprint, the distributions of a site directory), and the pruning that
// keeps it small.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>

namespace importscope {

/// $XDG_CACHE_HOME/importscope, else ~/.cache/importscope; none when neither variable is set. It
/// may not exist yet: whoever writes into it makes it.
std::optional<std::filesystem::path> cache_directory();

/// Keeps the `keep` newest files of `directory` whose names begin with `prefix` and end with
/// `suffix`, and removes the others: every interpreter, venv and site directory has entries of its
/// own, and a CI machine that makes a venv per job would otherwise collect them for ever. Errors
/// are ignored: a cache that cannot be pruned only grows.
void prune_cache_files(const std::filesystem::path& directory, std::string_view prefix, std::string_view suffix,
                       std::size_t keep);

} // namespace importscope
