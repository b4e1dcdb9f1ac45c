#pragma once

#include "importscope/journal/shared_journal.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "importscope/util/console.hpp"

#include <sysexits.h>
#include <unistd.h>

/// The worker: the process that the supervisor forks. It embeds CPython and runs a Python target,
/// or executes any other program with Python children traced, and ends the way the target ends.
/// The embedding part is built once per CPython minor (lib/importscope/cpython-3.X/worker.so) and
/// loaded by the supervisor's child after the target's libpython (supervisor/worker_launch.cpp).
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

/// The start channel's write end, until the handshake is written.
class StartChannel {
public:
    explicit StartChannel(int fd) : m_fd(fd) {}
    /// Writes the handshake's word (and a message); lets go of the channel unless the word is
    /// `exec` (the program's exec closes it). A supervisor that is gone reads nothing either way.
    void tell(char word, std::string_view message = {}) noexcept
    {
        if (m_fd < 0)
            return;
        std::string text(1, word);
        text += message;
        (void)write_all(m_fd, text);
        if (word != start_word::exec) {
            ::close(m_fd);
            m_fd = -1;
        }
    }

    /// importscope could not start the target: says why on stderr and to the supervisor, and ends
    /// the process (the supervisor makes the run a tool failure).
    [[noreturn]] void fail(std::string_view message) noexcept
    {
        print_to_stderr("importscope: error: " + std::string(message) + "\n");
        tell(start_word::failed, message);
        ::_exit(EX_SOFTWARE);
    }

private:
    int m_fd;
};

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
    bool stdin_closed = false;      ///< descriptor 0 was closed: the target starts with it closed (sys.stdin None)
    journal::SharedJournalWriter shared_journal; ///< the supervisor's journal::SharedJournal, or none: a file
};

/// The worker's entry point, exported by every worker.so: runs the target with the hooks in place
/// before any of its code, writing the start handshake to `start_fd` (close-on-exec), then ends
/// the process with the target's exit status. Never returns. The environment for Python children
/// (export_to_children) is in place before it is called.
inline constexpr const char* k_worker_entry = "importscope_worker_main";
using WorkerEntry = void (*)(const WorkerPlan* plan, int start_fd);

/// Sets what Python children need to trace themselves: the run's settings, and the bootstrap
/// directory first on PYTHONPATH so that their site imports its sitecustomize.
void export_to_children(const WorkerPlan& plan);

/// The PYTHONPATH export_to_children gives Python children: `bootstrap_dir`, then the environment's.
std::string children_python_path(const std::string& bootstrap_dir);

/// The longest environment string ("NAME=value" and its NUL) that execve takes, Linux's
/// MAX_ARG_STRLEN (32 pages of 4 KiB): a longer one makes every exec fail with E2BIG.
inline constexpr std::size_t k_max_env_string = std::size_t{32} * 4096;

/// The target's own PYTHONPATH, given the one export_to_children made for the children
/// (`children_path`): without the bootstrap directory, empty when that was all of it; nothing when
/// `children_path` is not one export_to_children made.
std::optional<std::string> target_python_path(const WorkerPlan& plan, std::string_view children_path);

/// The command line python would have been given for an embedded target (sys.orig_argv):
/// [python, options..., SCRIPT | -m MODULE | -c CODE | -, args...].
std::vector<std::string> python_command_line(const std::string& python, const Target& target);

} // namespace importscope::embed
