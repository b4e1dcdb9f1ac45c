#include "importscope/util/regular_file.hpp"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope {

bool is_regular_file(const std::string& path)
{
    struct stat facts {};
    return ::stat(path.c_str(), &facts) == 0 && S_ISREG(facts.st_mode);
}

std::optional<RegularFile> open_regular_file(const char* path, int directory)
{
    UniqueFd fd(::openat(directory, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    struct stat facts {};
    if (!fd || ::fstat(fd.get(), &facts) != 0 || !S_ISREG(facts.st_mode))
        return std::nullopt;
    return RegularFile{std::move(fd), static_cast<std::size_t>(facts.st_size)};
}

std::optional<std::string> read_regular_file(const char* path, std::size_t limit, int directory)
{
    const std::optional<RegularFile> file = open_regular_file(path, directory);
    if (!file || file->size > limit)
        return std::nullopt;
    std::string text(file->size + 1, '\0'); // one more: the end is seen in the same read
    std::size_t used = 0;
    for (;;) {
        if (used == text.size()) { // the file grew since it was opened
            if (used > limit)
                return std::nullopt;
            text.resize(std::min(text.size() * 2, limit + 1));
        }
        const ssize_t n = ::read(file->fd.get(), text.data() + used, text.size() - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return std::nullopt;
        if (n == 0)
            break;
        used += static_cast<std::size_t>(n);
    }
    if (used > limit)
        return std::nullopt;
    text.resize(used);
    return text;
}

} // namespace importscope
