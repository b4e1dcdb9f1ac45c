#include "importscope/util/host.hpp"

#include <climits>
#include <unistd.h>

namespace importscope {

std::string current_directory()
{
    char cwd[PATH_MAX];
    return ::getcwd(cwd, sizeof cwd) ? cwd : "";
}

std::string host_name()
{
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? name : "";
}

} // namespace importscope
