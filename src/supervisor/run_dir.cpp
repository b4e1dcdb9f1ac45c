#include "importscope/supervisor/run_dir.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
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

int RunDir::create_journal(const std::string& name) const
{
    const auto file = m_path / name;
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        throw system_error(fmt::format("cannot create journal {}", file.string()), errno);
    return fd;
}

} // namespace importscope::supervisor
