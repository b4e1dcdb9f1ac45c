#include "hook/file_facts.hpp"

#include <climits>
#include <cstdlib>
#include <string_view>
#include <sys/stat.h>
#include <unordered_map>

namespace importscope::hook {

namespace {

std::optional<std::string> resolve(const std::string& path)
{
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved))
        return std::nullopt;
    return std::string(resolved);
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
    const std::size_t slash = directory.rfind('/');
    const std::string_view name = std::string_view(directory).substr(slash == std::string::npos ? 0 : slash + 1);
    struct stat st {};
    if (directory.size() > 1 && directory.front() == '/' && !name.empty() && name != "." && name != ".." &&
        ::lstat(directory.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        const std::optional<std::string>& parent = resolved_directory(directory.substr(0, slash == 0 ? 1 : slash));
        if (parent)
            resolved = (parent->back() == '/' ? *parent : *parent + '/') + std::string(name);
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
    const std::size_t slash = path.rfind('/');
    const std::string_view name = std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
    const bool plain_name = !name.empty() && name != "." && name != "..";
    if (path.front() == '/' && plain_name && ::lstat(path.c_str(), &st) == 0 && !S_ISLNK(st.st_mode)) {
        // Not a symlink itself: the file is its directory's real path plus its own name.
        facts.identity =
            journal::FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
        const std::optional<std::string>& directory = resolved_directory(path.substr(0, slash == 0 ? 1 : slash));
        if (directory) {
            facts.realpath = *directory;
            if (facts.realpath.back() != '/')
                facts.realpath += '/';
            facts.realpath += name;
        }
        return facts;
    }
    if (std::optional<std::string> resolved = resolve(path))
        facts.realpath = std::move(*resolved);
    if (::stat(path.c_str(), &st) == 0)
        facts.identity =
            journal::FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
    return facts;
}

} // namespace importscope::hook
