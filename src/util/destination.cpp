#include "importscope/util/destination.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope {

namespace {

namespace fs = std::filesystem;

/// As many symlinks as the kernel follows in one path (MAXSYMLINKS) before ELOOP.
constexpr int k_max_links = 40;

/// The descriptor a path names, spelt in any way that means the same (`/dev//stdout`,
/// `/dev/./fd/1`), or -1: /dev/stdout, /dev/stderr, /dev/stdin, /dev/fd/N, /proc/self/fd/N,
/// /proc/thread-self/fd/N and /proc/<importscope's pid>/fd/N.
int descriptor_named(const fs::path& path)
{
    const std::string text = path.lexically_normal().string();
    if (text == "/dev/stdin")
        return STDIN_FILENO;
    if (text == "/dev/stdout")
        return STDOUT_FILENO;
    if (text == "/dev/stderr")
        return STDERR_FILENO;
    const std::array<std::string, 4> prefixes{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/",
                                              fmt::format("/proc/{}/fd/", ::getpid())};
    for (const std::string& prefix : prefixes) {
        const std::string number = text.starts_with(prefix) ? text.substr(prefix.size()) : std::string{};
        if (!number.empty() && number.size() <= 9 &&
            std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::atoi(number.c_str());
    }
    return -1;
}

struct Followed {
    fs::path path;       ///< the last name, which is not a symlink (or does not exist yet)
    int descriptor = -1; ///< the descriptor a name on the way named
};

/// Follows `path`'s symlinks one at a time as open(2) would, stopping at a name of a descriptor:
/// a dangling symlink ends at the name it points to, to be created. Throws Error for a loop.
Followed follow_links(const fs::path& path)
{
    fs::path current = path;
    for (int hop = 0; hop <= k_max_links; ++hop) {
        if (const int descriptor = descriptor_named(current); descriptor >= 0)
            return {current, descriptor};
        struct stat st {};
        std::error_code ec;
        if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return {current, -1};
        const fs::path target = fs::read_symlink(current, ec);
        if (ec)
            return {current, -1};
        if (target.is_absolute()) {
            current = target;
            continue;
        }
        const fs::path directory = fs::weakly_canonical(fs::absolute(directory_of(current), ec), ec);
        current = ec ? directory_of(current) / target : directory / target;
    }
    throw Error(fmt::format("cannot write {}: its symbolic links form a loop (more than {} of them)", path.string(),
                            k_max_links));
}

/// An inherited descriptor as a destination: open, and for writing.
Destination descriptor_destination(const fs::path& path, int descriptor)
{
    Destination destination;
    destination.path = path;
    destination.descriptor = descriptor;
    const int flags = ::fcntl(descriptor, F_GETFL);
    if (flags < 0)
        throw Error(fmt::format("cannot write {}: descriptor {} is not open", path.string(), descriptor));
    if ((flags & O_ACCMODE) == O_RDONLY)
        throw Error(fmt::format("cannot write {}: descriptor {} is open for reading only", path.string(), descriptor));
    return destination;
}

/// The first bytes of an existing file, to tell a report from anything else; nullopt if unreadable.
std::optional<std::string> head_of(const fs::path& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::string head(4096, '\0');
    const ssize_t got = ::read(fd, head.data(), head.size());
    ::close(fd);
    if (got < 0)
        return std::nullopt;
    head.resize(static_cast<std::size_t>(got));
    return head;
}

/// Refuses an existing regular file that is neither empty nor a JSON document (the first byte
/// but whitespace and a UTF-8 byte order mark is '{'): a source file, a script, an interpreter.
void check_looks_like_a_report(const fs::path& given, const Destination& destination)
{
    const std::optional<std::string> head = head_of(destination.path);
    if (!head)
        throw Error(fmt::format("cannot write {}: it exists and cannot be read to check that it is a report ({})",
                                given.string(), std::strerror(errno)));
    std::size_t at = head->starts_with("\xEF\xBB\xBF") ? 3 : 0;
    at = head->find_first_not_of(" \t\r\n", at);
    if (at == std::string::npos || (*head)[at] == '{')
        return;
    throw Error(fmt::format("cannot write {}: it is a file that is not a JSON report (it does not begin with '{{'); "
                            "importscope replaces only a report or an empty file: remove it or choose another path",
                            given.string()));
}

void check_not_an_input(const fs::path& path, const Destination& destination, const std::vector<fs::path>& inputs)
{
    if (!destination.identity)
        return;
    for (const auto& other : inputs) {
        struct stat st {};
        if (::stat(other.c_str(), &st) == 0 &&
            destination.identity->first == static_cast<std::uint64_t>(st.st_dev) &&
            destination.identity->second == static_cast<std::uint64_t>(st.st_ino))
            throw Error(fmt::format("cannot write {}: it is {}, which this command reads", path.string(),
                                    other.string()));
    }
}

} // namespace

fs::path directory_of(const fs::path& path)
{
    const auto parent = path.parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

Destination inspect_destination(const fs::path& path)
{
    if (path.empty())
        throw Error("the output path is empty");
    const Followed followed = follow_links(path);
    if (followed.descriptor >= 0)
        return descriptor_destination(path, followed.descriptor);
    Destination destination;
    destination.path = followed.path;
    struct stat st {};
    if (::stat(followed.path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            throw Error(fmt::format("cannot write {}: it is a directory", path.string()));
        if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
            throw Error(fmt::format("cannot write {}: it is a {}, not a file", path.string(),
                                    S_ISBLK(st.st_mode) ? "block device" : "socket"));
        destination.identity = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
            destination.write_through = true; // /dev/null, a named pipe: written into, never replaced
            return destination;
        }
    }
    // A regular file, or none yet: replaced atomically where it really is, beside the symlink's
    // target rather than over the symlink.
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(fs::absolute(followed.path), ec);
    if (!ec)
        destination.path = resolved;
    return destination;
}

void check_writable_destination(const fs::path& path, const std::vector<fs::path>& must_not_be, Replaces replaces)
{
    const Destination destination = inspect_destination(path);
    check_not_an_input(path, destination, must_not_be);
    if (destination.descriptor >= 0 || destination.write_through)
        return;
    const auto dir = directory_of(destination.path);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw Error(fmt::format("cannot write {}: directory {} does not exist", path.string(), dir.string()));
    // The way the report will be written, tried: a temporary file beside it (root's access(2)
    // says yes to /proc).
    std::string temp = (dir / ".importscope-check.XXXXXX").string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0)
        throw Error(fmt::format("cannot write {}: directory {} does not take new files ({})", path.string(),
                                dir.string(), std::strerror(errno)));
    ::close(fd);
    ::unlink(temp.c_str());
    if (destination.identity && replaces == Replaces::report_only)
        check_looks_like_a_report(path, destination);
}

} // namespace importscope
