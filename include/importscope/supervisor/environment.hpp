#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace importscope::supervisor {

/// The default environment-variable prefixes a report records (--env-prefix adds more).
inline const std::vector<std::string> k_default_env_prefixes = {"VLLM_",  "FLASHINFER_", "CUDA_",          "NCCL_",
                                                                "TORCH_", "PYTHON",      "LD_LIBRARY_PATH"};

struct EnvironmentRequest {
    std::string python_executable;              ///< the target's interpreter
    std::string fingerprint_script;             ///< fingerprint.py; empty: no Python-side facts
    std::vector<std::string> top_level_modules; ///< whose owning distributions to look up
    std::vector<std::string> env_prefixes;      ///< which environment variables to record
};

/// The report's `environment`: interpreter, platform and package versions (from fingerprint.py run
/// with the target's interpreter after the run), GPU models when readable without initializing CUDA,
/// and the environment variables with the given prefixes, secrets redacted.
nlohmann::json collect_environment(const EnvironmentRequest& request);

/// Environment variables (from `environ`) whose names start with one of `prefixes`, redacted.
nlohmann::json collect_variables(char** environ, const std::vector<std::string>& prefixes);

} // namespace importscope::supervisor
