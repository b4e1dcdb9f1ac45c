#include "importscope/embed/worker.hpp"

#include "embed/interpreter.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"
#include "hook/process_tracking.hpp"
#include "importscope/journal/run_layout.hpp"

#include "importscope/util/console.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <sysexits.h>
#include <unistd.h>

namespace importscope::embed {

namespace {

int g_start_fd = -1; ///< the start channel, until the handshake is written

/// Writes the handshake's word (and a message) to the supervisor, then lets go of the channel.
void tell_supervisor(char word, std::string_view message = {}) noexcept
{
    if (g_start_fd < 0)
        return;
    std::string text(1, word);
    text += message;
    (void)write_all(g_start_fd, text); // a supervisor that is gone reads nothing either way
    if (word != start_word::exec) { // the program's exec closes it
        ::close(g_start_fd);
        g_start_fd = -1;
    }
}

/// What Python children need to trace themselves: the run's settings, and the bootstrap directory
/// first on PYTHONPATH so that their site imports its sitecustomize.
void export_to_children(const WorkerPlan& plan)
{
    ::setenv(journal::k_env_run_dir, plan.run_dir.c_str(), 1);
    ::setenv(journal::k_env_match, journal::join_patterns(plan.match).c_str(), 1);
    ::setenv(journal::k_env_follow, plan.follow ? "1" : "0", 1);
    if (!plan.problem_address.empty())
        ::setenv(journal::k_env_problems, plan.problem_address.c_str(), 1);
    if (!plan.fallback_dynload.empty())
        ::setenv(journal::k_env_fallback_dynload, plan.fallback_dynload.c_str(), 1);
    if (plan.follow && !plan.bootstrap_dir.empty()) {
        const char* old = std::getenv("PYTHONPATH");
        const std::string path = old && *old ? plan.bootstrap_dir + ":" + old : plan.bootstrap_dir;
        ::setenv("PYTHONPATH", path.c_str(), 1);
        ::setenv(journal::k_env_bootstrap, plan.bootstrap_dir.c_str(), 1);
    }
}

[[noreturn]] void fail(const std::string& message)
{
    print_to_stderr(fmt::format("importscope: error: {}\n", message));
    tell_supervisor(start_word::failed, message);
    ::_exit(EX_SOFTWARE);
}

/// A start-up that CPython ended: an exit its options asked for (python --version) is the target's
/// own; an error (a PYTHONHOME without a stdlib) is importscope's failure to start the target.
void on_failed_startup(const PyStatus& status)
{
    if (PyStatus_IsExit(status)) {
        tell_supervisor(start_word::exited, std::to_string(status.exitcode));
        return;
    }
    std::string message = "the embedded Python interpreter did not start";
    if (status.func)
        message += fmt::format(": {}", status.func);
    if (status.err_msg)
        message += fmt::format(": {}", status.err_msg);
    tell_supervisor(start_word::failed, message);
}

/// Executes a program that is not Python, whose Python descendants trace themselves.
[[noreturn]] void exec_program(const WorkerPlan& plan)
{
    export_to_children(plan);
    std::vector<std::string> words = {plan.target.program_argv0};
    words.insert(words.end(), plan.target.args.begin(), plan.target.args.end());
    std::vector<char*> argv;
    argv.reserve(words.size() + 1);
    for (auto& word : words)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    tell_supervisor(start_word::exec);
    ::execv(plan.target.value.c_str(), argv.data());
    int err = errno;
    if (err == ENOEXEC) { // a script without a #! line: a shell runs it with sh, and so does this
        std::vector<char*> sh_argv = {const_cast<char*>("sh"), const_cast<char*>(plan.target.value.c_str())};
        sh_argv.insert(sh_argv.end(), argv.begin() + 1, argv.end());
        ::execv("/bin/sh", sh_argv.data());
        err = errno;
    }
    print_to_stderr(fmt::format("importscope: error: cannot execute {}: {}\n", plan.target.value, std::strerror(err)));
    (void)write_all(g_start_fd, std::string_view(&start_word::failed, 1)); // the status below says it too
    // As a shell says it: 127 for a program that is not there, 126 for one that cannot be run.
    ::_exit(err == ENOENT ? 127 : 126);
}

} // namespace

[[noreturn]] void run_worker(const WorkerPlan& plan, int start_fd)
{
    g_start_fd = start_fd;
    if (plan.target.kind == TargetKind::program)
        exec_program(plan);
    hook::configure({plan.match, false, plan.fallback_dynload, plan.run_dir, plan.follow});
    if (plan.shared_journal)
        hook::JournalWriter::instance().offer_shared(plan.shared_journal, plan.shared_journal_capacity);
    journal::ProcessStart start;
    start.start_method = "main";
    start.ppid = static_cast<int>(::getppid());
    start.argv = python_command_line(plan.python_executable, plan.target);
    start.executable = plan.python_executable;
    if (!hook::begin_process(std::move(start)))
        fail(fmt::format("cannot create a journal in {}: {}", plan.run_dir, std::strerror(errno)));
    export_to_children(plan);
    hook::register_audit_hook();
    if (PyImport_AppendInittab(hook::k_module_name, hook::init_module) < 0)
        fail("cannot register the hook module");

    on_startup_failure(on_failed_startup);
    int status = EX_SOFTWARE;
    try {
        Interpreter interpreter(
            plan, [] { hook::install_finder(); },
            [] {
                hook::ensure_finder_first();
                hook::install_process_trackers();
            });
        tell_supervisor(start_word::ready);
        status = interpreter.run_main();
    } catch (const std::exception& e) {
        fail(fmt::format("the hooks could not be installed: {}", e.what()));
    }
    (void)std::fflush(nullptr); // the target's status is what counts
    ::_exit(status);
}

} // namespace importscope::embed
