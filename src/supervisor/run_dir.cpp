#include "importscope/supervisor/run_dir.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <unistd.h>

namespace importscope::supervisor {

RunDir::RunDir()
{
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/importscope-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!::mkdtemp(pattern.data()))
        throw system_error(fmt::format("cannot create a run directory like {}", pattern), errno);
    m_path = pattern;
}

RunDir::~RunDir()
{
    if (m_keep)
        return;
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
}

} // namespace importscope::supervisor
