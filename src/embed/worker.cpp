#include "importscope/embed/worker.hpp"

#include "embed/interpreter.hpp"
#include "embed/python_error.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"
#include "importscope/util/clock.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstdio>
#include <sysexits.h>
#include <unistd.h>

namespace importscope::embed {

namespace {

void record_process_start(const WorkerPlan& plan)
{
    hook::JournalWriter& journal = hook::JournalWriter::instance();
    journal::ProcessStart e;
    e.pid = journal.pid();
    e.ppid = static_cast<int>(::getppid());
    e.argv = target_argv(plan.target);
    e.executable = plan.python_executable;
    e.python_version = Py_GetVersion();
    e.python_version.resize(e.python_version.find(' ') == std::string::npos ? e.python_version.size()
                                                                            : e.python_version.find(' '));
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd))
        e.cwd = cwd;
    e.start_method = "main";
    e.wall_ns = wall_ns();
    e.mono_ns = monotonic_ns();
    journal.append(e);
}

} // namespace

[[noreturn]] void run_worker(const WorkerPlan& plan)
{
    hook::JournalWriter::instance().open(plan.journal_fd, static_cast<int>(::getpid()));
    record_process_start(plan);
    hook::configure({plan.match, false, plan.fallback_dynload});
    hook::register_audit_hook();
    if (PyImport_AppendInittab(hook::k_module_name, hook::init_module) < 0) {
        fmt::print(stderr, "importscope: error: cannot register the hook module\n");
        std::_Exit(EX_SOFTWARE);
    }

    int status = EX_SOFTWARE;
    try {
        Interpreter interpreter(
            plan, [] { hook::install_finder(); }, [] { hook::ensure_finder_first(); });
        status = interpreter.run_main();
    } catch (const std::exception& e) {
        fmt::print(stderr, "importscope: error: the hooks could not be installed: {}\n", e.what());
    }
    std::fflush(nullptr);
    ::_exit(status);
}

} // namespace importscope::embed
