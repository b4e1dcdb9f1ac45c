#include "importscope/supervisor/environment.hpp"

#include "importscope/util/redact.hpp"
#include "importscope/util/run_program.hpp"

#include <filesystem>
#include <fstream>
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

nlohmann::json collect_environment(const EnvironmentRequest& request)
{
    nlohmann::json environment = {{"gpus", collect_gpus()},
                                  {"variables", collect_variables(environ, request.env_prefixes)},
                                  {"python", nullptr},
                                  {"platform", nullptr},
                                  {"machine", nullptr},
                                  {"libc", nullptr},
                                  {"packages", nlohmann::json::object()},
                                  {"distributions", nlohmann::json::object()}};
    if (request.fingerprint_script.empty())
        return environment;
    std::vector<std::string> argv = {request.python_executable, "-S", request.fingerprint_script};
    argv.insert(argv.end(), request.top_level_modules.begin(), request.top_level_modules.end());
    const auto output = run_and_capture(argv, 60.0);
    const auto facts = output ? nlohmann::json::parse(*output, nullptr, false) : nlohmann::json();
    if (!facts.is_object()) {
        environment["problem"] = "the environment fingerprint could not be taken with " + request.python_executable;
        return environment;
    }
    for (const char* key : {"python", "platform", "machine", "libc", "packages", "distributions"})
        if (facts.contains(key))
            environment[key] = facts.at(key);
    return environment;
}

} // namespace importscope::supervisor
