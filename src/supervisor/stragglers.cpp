#include "importscope/supervisor/stragglers.hpp"

#include "importscope/journal/run_layout.hpp"

#include <csignal>
#include <fstream>
#include <iterator>
#include <string>

namespace importscope::supervisor {

namespace {

bool carries_run_dir(int pid, const std::string& marker)
{
    std::ifstream environ("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(environ)), std::istreambuf_iterator<char>());
    return text.find(marker) != std::string::npos;
}

} // namespace

std::vector<int> kill_stragglers(const std::filesystem::path& run_dir, const std::vector<int>& candidates)
{
    const std::string marker = std::string(journal::k_env_run_dir) + "=" + run_dir.string() + '\0';
    std::vector<int> killed;
    for (int pid : candidates)
        if (pid > 1 && ::kill(pid, 0) == 0 && carries_run_dir(pid, marker) && ::kill(pid, SIGKILL) == 0)
            killed.push_back(pid);
    return killed;
}

} // namespace importscope::supervisor
