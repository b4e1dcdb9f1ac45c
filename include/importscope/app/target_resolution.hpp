#pragma once

#include "importscope/embed/worker.hpp"

#include <optional>
#include <string>
#include <vector>

/// What `importscope run` is asked to run, worked out before anything runs: a Python target for
/// the embedded interpreter (SCRIPT, -m, -c, -, a Python interpreter's own command line, a script
/// whose shebang names Python), or any other program, found as a shell finds it.
namespace importscope::app {

/// The target as the user wrote it.
struct TargetRequest {
    std::string script;  ///< SCRIPT (a file or directory), "-" for standard input, or a command NAME
    std::string module;  ///< -m MODULE
    std::string code;    ///< -c CODE
    std::optional<std::string> command; ///< the word after `--`: COMMAND, looked up on PATH
    std::vector<std::string> args;      ///< everything after the target
};

struct ResolvedTarget {
    embed::Target target;
    /// The interpreter the command names (`python3.11 x.py`, a shebang's); empty: --python decides.
    std::string interpreter;
    /// How the target was recognised, for the report and the summary: "script", "module", "command",
    /// "stdin", "python command line", "python script (shebang)", "program".
    std::string recognised_as;
};

/// Works out the target; throws Error with the shell's status (127: no such command, 126: it cannot
/// be run) or the usage status when the request itself is wrong.
ResolvedTarget resolve_target(const TargetRequest& request);

/// Whether a file name is a Python interpreter's: python, python3, python3.11, python3.13t ...
bool is_python_name(const std::string& file_name);

/// Splits the words after a Python interpreter into its options, its target and the target's
/// arguments, as python's own command-line parser does.
embed::Target parse_python_arguments(const std::vector<std::string>& words);

/// The interpreter and its one argument from a file's "#!" line; nullopt without one. `/usr/bin/env
/// NAME` (with or without -S) is looked up on PATH.
struct Shebang {
    std::string interpreter;
    std::vector<std::string> options;
};
std::optional<Shebang> read_shebang(const std::string& path);

} // namespace importscope::app
