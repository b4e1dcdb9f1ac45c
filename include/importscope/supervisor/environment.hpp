#pragma once

// The run's environment as the report records it: the fingerprint (fingerprint.py, run with the
// target's interpreter), the GPUs, and the variables of the recorded prefixes, redacted.

#include "importscope/supervisor/supervisor.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace importscope::supervisor {

/// The default environment-variable prefixes a report records (--env-prefix adds more).
inline const std::vector<std::string> k_default_env_prefixes = {"VLLM_",  "FLASHINFER_", "CUDA_",          "NCCL_",
                                                                "TORCH_", "PYTHON",      "LD_LIBRARY_PATH"};

/// fingerprint.py running beside the target with the target's interpreter (python -I -S), its
/// output going to a file in the run directory. Started right after the target
/// (SuperviseOptions::after_start), so as not to delay its start, and run while it runs.
/// Its answer is cached per interpreter, PYTHONPATH and script (under $XDG_CACHE_HOME/importscope
/// or ~/.cache/importscope) and reused without running Python while no directory it read has a
/// new modification time.
class Fingerprint {
public:
    /// Starts it; an empty `script` starts nothing (the environment then has no Python-side facts).
    Fingerprint(const std::string& python_executable, const std::string& script, const std::string& output_path);

    /// Its facts once it is done: waits up to `timeout_s`, unless the supervisor (the subreaper)
    /// already reaped it, in which case its entry in `reaped` is taken out. Null when it failed or
    /// was not started.
    nlohmann::json finish(std::map<int, ProcessExit>& reaped, double timeout_s = 30.0);

    /// The helper's pid while it runs, else -1: a child of the supervisor that is not the target's.
    int pid() const { return m_pid; }

private:
    int m_pid = -1;
    std::string m_output_path;
    std::string m_cache_path;  ///< empty: no cache
    nlohmann::json m_cached;   ///< a still valid cached answer, or null
};

/// The report's `environment`: the fingerprint's facts (interpreter, platform), the `packages`
/// versions and the `distributions` owning the run's top-level modules (read from the metadata by
/// the caller, as the analysis reads it), GPU models when readable without initializing CUDA, and
/// the environment variables with the given prefixes, secrets redacted.
nlohmann::json collect_environment(nlohmann::json fingerprint, nlohmann::json packages, nlohmann::json distributions,
                                   const std::vector<std::string>& env_prefixes);

/// Environment variables (from `environ`) whose names start with one of `prefixes`, redacted.
nlohmann::json collect_variables(char** environ, const std::vector<std::string>& prefixes);

} // namespace importscope::supervisor
