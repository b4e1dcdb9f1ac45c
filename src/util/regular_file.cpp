#include "importscope/util/regular_file.hpp"

#include <sys/stat.h>

namespace importscope {

std::optional<RegularFile> open_regular_file(const char* path, int directory)
{
    UniqueFd fd(::openat(directory, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    struct stat facts {};
    if (!fd || ::fstat(fd.get(), &facts) != 0 || !S_ISREG(facts.st_mode))
        return std::nullopt;
    return RegularFile{std::move(fd), static_cast<std::size_t>(facts.st_size)};
}

} // namespace importscope
