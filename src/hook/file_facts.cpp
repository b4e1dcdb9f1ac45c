#include "hook/file_facts.hpp"

#include <climits>
#include <cstdlib>
#include <string_view>
#include <sys/stat.h>
#include <unordered_map>
#include <utility>

namespace importscope::hook {

namespace {

std::optional<std::string> resolve(const std::string& path)
{
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved))
        return std::nullopt;
    return std::string(resolved);
}

journal::FileIdentity identity_of(const struct stat& st)
{
    return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

/// An absolute path cut at its last slash: its directory ("/" at the root) and its last
/// component. None when the path is relative or ends in "", "." or "..", which only realpath()
/// resolves.
std::optional<std::pair<std::string, std::string_view>> split(const std::string& path)
{
    if (path.empty() || path.front() != '/')
        return std::nullopt;
    const std::size_t slash = path.rfind('/');
    const std::string_view name = std::string_view(path).substr(slash + 1);
    if (name.empty() || name == "." || name == "..")
        return std::nullopt;
    return std::pair{path.substr(0, slash == 0 ? 1 : slash), name};
}

/// `name` in the directory `directory`.
std::string child(const std::string& directory, std::string_view name)
{
    std::string path = directory;
    if (path.back() != '/')
        path += '/';
    path += name;
    return path;
}

/// realpath() of an absolute directory, resolved once per directory: realpath() costs a readlink()
/// per path component, and the modules of a package share their directory. A directory that is
/// not a symlink is its parent's real path plus its own name, so a new directory below a known
/// one costs one lstat(). (A directory symlink retargeted while the target runs keeps its first
/// resolution.)
const std::optional<std::string>& resolved_directory(const std::string& directory)
{
    static std::unordered_map<std::string, std::optional<std::string>> directories;
    if (const auto known = directories.find(directory); known != directories.end())
        return known->second;
    std::optional<std::string> resolved;
    const auto parts = split(directory);
    struct stat st {};
    if (parts && ::lstat(directory.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (const std::optional<std::string>& parent = resolved_directory(parts->first))
            resolved = child(*parent, parts->second);
    } else {
        resolved = resolve(directory); // the root, a symlink, dots, or something that is not there
    }
    return directories.try_emplace(directory, std::move(resolved)).first->second;
}

} // namespace

FileFacts file_facts(const std::string& path)
{
    FileFacts facts;
    if (path.empty())
        return facts;
    struct stat st {};
    if (const auto parts = split(path); parts && ::lstat(path.c_str(), &st) == 0 && !S_ISLNK(st.st_mode)) {
        // Not a symlink itself: the file is its directory's real path plus its own name.
        facts.identity = identity_of(st);
        if (const std::optional<std::string>& directory = resolved_directory(parts->first))
            facts.realpath = child(*directory, parts->second);
        return facts;
    }
    if (std::optional<std::string> resolved = resolve(path))
        facts.realpath = std::move(*resolved);
    if (::stat(path.c_str(), &st) == 0)
        facts.identity = identity_of(st);
    return facts;
}

} // namespace importscope::hook
