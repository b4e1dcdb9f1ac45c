#include "hook/file_facts.hpp"

#include <climits>
#include <cstdlib>
#include <sys/stat.h>

namespace importscope::hook {

FileFacts file_facts(const std::string& path)
{
    FileFacts facts;
    if (path.empty())
        return facts;
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved))
        facts.realpath = resolved;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        facts.identity =
            journal::FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
    return facts;
}

} // namespace importscope::hook
