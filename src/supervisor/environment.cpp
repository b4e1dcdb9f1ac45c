#include "importscope/supervisor/environment.hpp"

#include "importscope/util/redact.hpp"
#include "importscope/util/run_program.hpp"

#include "importscope/util/clock.hpp"

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace importscope::supervisor {

namespace {

/// GPU models from the NVIDIA driver's /proc files, or `nvidia-smi -L`; null when neither exists.
nlohmann::json collect_gpus()
{
    namespace fs = std::filesystem;
    nlohmann::json gpus = nlohmann::json::array();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
        std::ifstream info(entry.path() / "information");
        for (std::string line; std::getline(info, line);)
            if (line.starts_with("Model:")) {
                const auto value = line.find_first_not_of(" \t", 6);
                gpus.push_back(value == std::string::npos ? std::string{} : line.substr(value));
            }
    }
    if (!gpus.empty())
        return gpus;
    for (const char* candidate : {"/usr/bin/nvidia-smi", "/usr/local/bin/nvidia-smi"}) {
        if (::access(candidate, X_OK) != 0)
            continue;
        if (const auto listing = run_and_capture({candidate, "-L"}, 10.0)) {
            std::istringstream lines(*listing);
            for (std::string line; std::getline(lines, line);)
                if (!line.empty())
                    gpus.push_back(line);
            return gpus;
        }
    }
    return nullptr;
}

} // namespace

nlohmann::json collect_variables(char** env, const std::vector<std::string>& prefixes)
{
    nlohmann::json variables = nlohmann::json::object();
    for (char** entry = env; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        const auto eq = text.find('=');
        if (eq == std::string_view::npos)
            continue;
        const std::string_view name = text.substr(0, eq);
        const bool wanted =
            std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return name.starts_with(p); });
        if (wanted)
            variables[std::string(name)] = redact_variable(name, text.substr(eq + 1));
    }
    return variables;
}

Fingerprint::Fingerprint(const std::string& python_executable, const std::string& script,
                         const std::string& output_path)
    : m_output_path(output_path)
{
    if (script.empty())
        return;
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int out = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
        if (out < 0 || devnull < 0)
            ::_exit(127);
        ::dup2(devnull, STDIN_FILENO);
        ::dup2(out, STDOUT_FILENO);
        ::dup2(devnull, STDERR_FILENO);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::setpgid(0, 0); // never part of the target's process group
        ::execl(python_executable.c_str(), python_executable.c_str(), "-S", script.c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    m_pid = pid;
}

nlohmann::json Fingerprint::finish(std::map<int, WaitStatus>& reaped, double timeout_s)
{
    if (m_pid < 0)
        return nullptr;
    bool ok = false;
    if (const auto it = reaped.find(m_pid); it != reaped.end()) {
        ok = it->second.code == 0;
        reaped.erase(it);
    } else {
        const std::int64_t deadline = monotonic_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
        int status = 0;
        pid_t done = 0;
        while ((done = ::waitpid(m_pid, &status, WNOHANG)) == 0 && monotonic_ns() < deadline)
            ::usleep(5'000);
        if (done == 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, &status, 0);
        }
        ok = done == m_pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    m_pid = -1;
    if (!ok)
        return nullptr;
    std::ifstream in(m_output_path);
    const auto facts = nlohmann::json::parse(in, nullptr, false);
    return facts.is_object() ? facts : nlohmann::json(nullptr);
}

nlohmann::json collect_environment(const nlohmann::json& fingerprint, const std::vector<std::string>& top_level_modules,
                                   const std::vector<std::string>& env_prefixes)
{
    nlohmann::json environment = {{"gpus", collect_gpus()},
                                  {"variables", collect_variables(environ, env_prefixes)},
                                  {"python", nullptr},
                                  {"platform", nullptr},
                                  {"machine", nullptr},
                                  {"libc", nullptr},
                                  {"packages", nlohmann::json::object()},
                                  {"distributions", nlohmann::json::object()}};
    if (!fingerprint.is_object()) {
        environment["problem"] = "the environment fingerprint could not be taken with the target's interpreter";
        return environment;
    }
    for (const char* key : {"python", "platform", "machine", "libc", "packages"})
        if (fingerprint.contains(key))
            environment[key] = fingerprint.at(key);
    const nlohmann::json& owners = fingerprint.value("distributions", nlohmann::json::object());
    for (const auto& module : top_level_modules)
        if (owners.contains(module))
            environment["distributions"][module] = owners.at(module);
    return environment;
}

} // namespace importscope::supervisor
