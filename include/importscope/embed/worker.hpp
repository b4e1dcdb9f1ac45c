#pragma once

#include <cstddef>
#include <string>
#include <vector>

/// The worker: the process that the supervisor forks. It embeds CPython and runs a Python target,
/// or executes any other program with Python children traced, and ends the way the target ends.
namespace importscope::embed {

/// What the target is, as on python's command line, or a program that is not Python.
enum class TargetKind {
    script,       ///< python SCRIPT
    module,       ///< python -m MODULE
    command,      ///< python -c CODE
    stdin_script, ///< python - (the script read from standard input)
    program,      ///< any other executable, run as a shell would; its Python descendants are traced
};

struct Target {
    TargetKind kind = TargetKind::script;
    std::string value;             ///< script path, module name, code, or the program's resolved path
    std::vector<std::string> args; ///< the target's own arguments, untouched
    /// Python's own options before the target ("-u", "-X", "dev", ...), as written; parsed by
    /// CPython itself.
    std::vector<std::string> interpreter_options;
    std::string program_argv0; ///< program: argv[0] as the user wrote it
};

/// The first bytes the worker writes into the start channel (SuperviseOptions: the supervisor
/// reads them after the worker ended): the handshake that tells importscope's failures from the
/// target's.
namespace start_word {
inline constexpr char ready = 'R';     ///< the interpreter runs and the hooks are in place; the target is next
inline constexpr char exec = 'X';      ///< the program is about to be executed
inline constexpr char failed = 'F';    ///< importscope could not start the target; a message follows
inline constexpr char exited = 'E';    ///< python ended during start-up as its options asked (--version)
} // namespace start_word

struct WorkerPlan {
    std::string python_executable;     ///< becomes sys.executable; its installation's paths are used
    bool foreign_installation = false; ///< not the installation libpython came from
    std::string fallback_dynload;      ///< last-resort stdlib extension directory (foreign only)
    Target target;
    std::vector<std::string> match; ///< module-name patterns to record
    std::string run_dir;            ///< the private directory where every traced process journals
    std::string problem_address;    ///< where traced processes report a journal they cannot write
    bool follow = true;             ///< follow Python children (bootstrap on PYTHONPATH, forks)
    std::string bootstrap_dir;      ///< holds the children's sitecustomize and hook module
    char* shared_journal = nullptr; ///< the supervisor's journal::SharedJournal, or null: a file
    std::size_t shared_journal_capacity = 0;
};

/// Runs the target with the hooks in place before any of its code, writing the start handshake to
/// `start_fd` (close-on-exec), then ends the process with the target's exit status. Never returns.
[[noreturn]] void run_worker(const WorkerPlan& plan, int start_fd);

/// The command line python would have been given for an embedded target (sys.orig_argv):
/// [python, options..., SCRIPT | -m MODULE | -c CODE | -, args...].
std::vector<std::string> python_command_line(const std::string& python, const Target& target);

} // namespace importscope::embed
