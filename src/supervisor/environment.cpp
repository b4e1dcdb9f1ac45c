#include "importscope/supervisor/environment.hpp"

#include "importscope/util/redact.hpp"
#include "importscope/util/run_program.hpp"

#include "importscope/util/atomic_file.hpp"
#include "importscope/util/cache_dir.hpp"
#include "importscope/util/regular_file.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/sha256.hpp"

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h> // environ

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

/// Where the fingerprint for this interpreter, PYTHONPATH and script version is cached; empty when
/// there is no cache directory.
std::string cache_path_for(const std::string& python_executable, const std::string& script)
{
    namespace fs = std::filesystem;
    const std::optional<fs::path> dir = cache_directory();
    if (!dir)
        return {};
    std::error_code ec;
    // The scripts' versions: fingerprint.py and the startup_path.py beside it.
    std::string scripts;
    for (const fs::path& file : {fs::path(script), fs::path(script).parent_path() / "startup_path.py"})
        scripts += file.string() + '\0' + std::to_string(static_cast<long long>(fs::last_write_time(file, ec).time_since_epoch().count())) + '\0';
    const char* pythonpath = std::getenv("PYTHONPATH");
    const char* no_user_site = std::getenv("PYTHONNOUSERSITE");
    // The interpreter as named, not the binary behind its symlinks: a venv's python is a symlink to
    // its base's, and each venv has a fingerprint of its own.
    const std::string key = fs::absolute(python_executable, ec).lexically_normal().string() + '\0' +
                            (pythonpath ? pythonpath : "") + '\0' + (no_user_site ? no_user_site : "") + '\0' + scripts;
    return (*dir / ("fingerprint-" + sha256_hex(key).substr(0, 24) + ".json")).string();
}

/// The newest answers kept: one per interpreter, venv and PYTHONPATH.
constexpr std::size_t k_cached_fingerprints = 64;

/// The cached answer, if every directory it read still has the modification time it had.
nlohmann::json still_valid(const std::string& cache_path)
{
    std::ifstream in(cache_path);
    if (!in)
        return nullptr;
    auto facts = nlohmann::json::parse(in, nullptr, false);
    if (!facts.is_object() || !facts.contains("scanned") || !facts.at("scanned").is_array())
        return nullptr;
    for (const auto& entry : facts.at("scanned")) {
        struct stat st{};
        if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number_integer() ||
            ::stat(entry[0].get<std::string>().c_str(), &st) != 0)
            return nullptr;
        const std::int64_t mtime = nanoseconds_of(st.st_mtim);
        if (mtime != entry[1].get<std::int64_t>())
            return nullptr;
    }
    return facts;
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
    m_cache_path = cache_path_for(python_executable, script);
    if (!m_cache_path.empty() && (m_cached = still_valid(m_cache_path)).is_object())
        return; // nothing to run
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
        ::execl(python_executable.c_str(), python_executable.c_str(), "-I", "-S", script.c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    m_pid = pid;
}

nlohmann::json Fingerprint::finish(std::map<int, ProcessExit>& reaped, double timeout_s)
{
    if (m_cached.is_object())
        return m_cached;
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
    // In the run directory, which the target can write into: a FIFO put in its place is not
    // waited on, nor a huge file read.
    constexpr std::size_t k_largest_facts = std::size_t{16} << 20;
    const std::optional<std::string> text = read_regular_file(m_output_path.c_str(), k_largest_facts);
    auto facts = nlohmann::json::parse(text.value_or(""), nullptr, false);
    if (!facts.is_object())
        return nullptr;
    if (!m_cache_path.empty()) {
        try {
            std::filesystem::create_directories(std::filesystem::path(m_cache_path).parent_path());
            write_file_atomically(m_cache_path, facts.dump());
            prune_cache_files(std::filesystem::path(m_cache_path).parent_path(), "fingerprint-", ".json",
                              k_cached_fingerprints);
        } catch (const std::exception&) {
            // an unwritable cache only costs the next run the fingerprint
        }
    }
    return facts;
}

nlohmann::json collect_environment(nlohmann::json fingerprint, nlohmann::json packages, nlohmann::json distributions,
                                   const std::vector<std::string>& env_prefixes)
{
    nlohmann::json environment = {{"gpus", collect_gpus()},
                                  {"variables", collect_variables(environ, env_prefixes)},
                                  {"python", nullptr},
                                  {"platform", nullptr},
                                  {"machine", nullptr},
                                  {"libc", nullptr},
                                  {"packages", nlohmann::json::object()},
                                  {"distributions", std::move(distributions)}};
    if (!fingerprint.is_object()) {
        environment["problem"] = "the environment fingerprint could not be taken with the target's interpreter";
        return environment;
    }
    for (const char* key : {"python", "platform", "machine", "libc"})
        if (fingerprint.contains(key))
            environment[key] = std::move(fingerprint.at(key));
    environment["packages"] = std::move(packages);
    return environment;
}

} // namespace importscope::supervisor
