#pragma once

#include "importscope/journal/event.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace importscope::collect {

/// What the file system says of the files a run's events name: each one's real path (symlinks
/// resolved) and identity (st_dev, st_ino), which tell that two paths are one file. The supervisor
/// finds what the writer left out as it reads the journals, on its own core, instead of each
/// traced process stopping for a stat() per import; the identity of a file importlib found comes
/// with its record (hook/importlib_stats.hpp), and only its directory is resolved here. Only
/// absolute paths are resolved: a relative one meant the traced process's working directory,
/// which is not the supervisor's.
class FileFacts {
public:
    struct Facts {
        std::string realpath;                          ///< empty when it cannot be resolved
        std::optional<journal::FileIdentity> identity; ///< when stat() works
    };

    /// Fills in the real paths and identities that `event`'s writer left out. An identity
    /// without a real path is the writer's lstat() of a file that is not a symlink.
    void complete(journal::Event& event);

    /// The facts of `path`; none for a relative path or one that is not there.
    Facts of(const std::string& path);

    /// The real path of `path`, a file that is not a symlink (whoever said so took its identity
    /// with lstat()): its directory's real path and its own name, without a look at the file. Empty
    /// for a relative path or a directory that is not there.
    std::string realpath_of_file(std::string_view path);

private:
    /// Hashes a directory's path as a view, so that a lookup builds no string.
    struct PathHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view path) const noexcept { return std::hash<std::string_view>{}(path); }
    };

    const std::optional<std::string>& resolved_directory(std::string_view directory);

    /// realpath() of each absolute directory seen, or none when it has none.
    std::unordered_map<std::string, std::optional<std::string>, PathHash, std::equal_to<>> m_directories;
};

} // namespace importscope::collect
