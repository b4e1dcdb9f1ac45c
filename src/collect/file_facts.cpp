#include "importscope/collect/file_facts.hpp"

#include <climits>
#include <cstdlib>
#include <string_view>
#include <sys/stat.h>
#include <utility>

namespace importscope::collect {

namespace {

std::optional<std::string> resolve(const char* path)
{
    char resolved[PATH_MAX];
    if (!::realpath(path, resolved))
        return std::nullopt;
    return std::string(resolved);
}

journal::FileIdentity identity_of(const struct stat& st)
{
    return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

/// An absolute path cut at its last slash: its directory ("/" at the root) and its last
/// component, both views of `path`. None when the path is relative or ends in "", "." or "..",
/// which only realpath() resolves.
std::optional<std::pair<std::string_view, std::string_view>> split(std::string_view path)
{
    if (path.empty() || path.front() != '/')
        return std::nullopt;
    const std::size_t slash = path.rfind('/');
    const std::string_view name = path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..")
        return std::nullopt;
    return std::pair{path.substr(0, slash == 0 ? 1 : slash), name};
}

/// `name` in the directory `directory`, built in one allocation.
std::string child(std::string_view directory, std::string_view name)
{
    const bool slash = directory.back() == '/';
    std::string path;
    path.reserve(directory.size() + (slash ? 0 : 1) + name.size());
    path += directory;
    if (!slash)
        path += '/';
    path += name;
    return path;
}

void complete_file(FileFacts& facts, const std::string& path, std::string& realpath,
                   std::optional<journal::FileIdentity>& identity)
{
    if (!realpath.empty())
        return; // the writer knew them
    if (identity) { // the writer's lstat: not a symlink
        realpath = facts.realpath_of_file(path);
        return;
    }
    FileFacts::Facts found = facts.of(path);
    realpath = std::move(found.realpath);
    identity = found.identity;
}

} // namespace

/// realpath() of an absolute directory, resolved once per directory: realpath() costs a readlink()
/// per path component, and the modules of a package share their directory. A directory that is
/// not a symlink is its parent's real path plus its own name, so a new directory below a known
/// one costs one lstat(). (A directory symlink retargeted while the target runs keeps its first
/// resolution.)
const std::optional<std::string>& FileFacts::resolved_directory(std::string_view directory)
{
    if (const auto known = m_directories.find(directory); known != m_directories.end())
        return known->second;
    const std::string path(directory); // for the system calls, which take a C string
    std::optional<std::string> resolved;
    const auto parts = split(path);
    struct stat st {};
    if (parts && ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (const std::optional<std::string>& parent = resolved_directory(parts->first))
            resolved = child(*parent, parts->second);
    } else {
        resolved = resolve(path.c_str()); // the root, a symlink, dots, or something that is not there
    }
    return m_directories.try_emplace(path, std::move(resolved)).first->second;
}

std::string FileFacts::realpath_of_file(std::string_view path)
{
    const auto parts = split(path);
    if (!parts)
        return {};
    const std::optional<std::string>& directory = resolved_directory(parts->first);
    return directory ? child(*directory, parts->second) : std::string();
}

FileFacts::Facts FileFacts::of(const std::string& path)
{
    Facts facts;
    if (path.empty() || path.front() != '/')
        return facts;
    struct stat st {};
    if (split(path) && ::lstat(path.c_str(), &st) == 0 && !S_ISLNK(st.st_mode)) {
        // Not a symlink itself: the file is its directory's real path plus its own name.
        facts.identity = identity_of(st);
        facts.realpath = realpath_of_file(path);
        return facts;
    }
    if (std::optional<std::string> resolved = resolve(path.c_str()))
        facts.realpath = std::move(*resolved);
    if (::stat(path.c_str(), &st) == 0)
        facts.identity = identity_of(st);
    return facts;
}

void FileFacts::complete(journal::Event& event)
{
    if (auto* load = std::get_if<journal::ExtensionLoad>(&event)) {
        complete_file(*this, load->path, load->realpath, load->identity);
    } else if (auto* begin = std::get_if<journal::ImportBegin>(&event)) {
        complete_file(*this, begin->origin, begin->realpath, begin->identity);
    } else if (auto* owners = std::get_if<journal::TypeOwners>(&event)) {
        for (journal::TypeOwner& owner : owners->owners)
            complete_file(*this, owner.file, owner.realpath, owner.identity);
    }
}

} // namespace importscope::collect
