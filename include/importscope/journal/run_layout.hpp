#pragma once

#include <filesystem>
#include <string>
#include <vector>

/// The contract between the supervisor and every traced process: the environment variables that
/// carry the run's settings to Python children, and the layout of the private run directory.
namespace importscope::journal {

/// The private run directory; every traced process writes its own journal there.
inline constexpr const char* k_env_run_dir = "IMPORTSCOPE_RUN_DIR";
/// The --match patterns, separated by newlines.
inline constexpr const char* k_env_match = "IMPORTSCOPE_MATCH";
/// The last-resort stdlib extension directory for a foreign --python installation, if any.
inline constexpr const char* k_env_fallback_dynload = "IMPORTSCOPE_FALLBACK_DYNLOAD";
/// "1" when Python children are followed; "0" for --no-follow.
inline constexpr const char* k_env_follow = "IMPORTSCOPE_FOLLOW";
/// The children's bootstrap directory, which PYTHONPATH must start with for a child to be traced.
inline constexpr const char* k_env_bootstrap = "IMPORTSCOPE_BOOTSTRAP";
/// The supervisor's problem inbox (journal/problem_channel.hpp), where a traced process says that
/// its journal cannot be created or written.
inline constexpr const char* k_env_problems = "IMPORTSCOPE_PROBLEMS";

/// File name prefix and suffix of journals: "journal-<pid>-<n>.isj" (an importscope journal, in
/// record_format.hpp's form). n tells apart the images of one pid (a process that exec'd Python again).
inline constexpr const char* k_journal_prefix = "journal-";
inline constexpr const char* k_journal_suffix = ".isj";

/// What a Python child with no hooks of its version writes instead of a journal (the bootstrap's
/// sitecustomize.py): "hookless-<pid>.json", its pid, ppid, version, abiflags, executable and argv.
inline constexpr const char* k_hookless_prefix = "hookless-";

/// The journal files in a run directory, in name order.
std::vector<std::filesystem::path> list_journals(const std::filesystem::path& run_dir);

/// Newline-joined patterns, and back.
std::string join_patterns(const std::vector<std::string>& patterns);
std::vector<std::string> split_patterns(const std::string& joined);

} // namespace importscope::journal
