#include "importscope/embed/worker.hpp"

#include "embed/interpreter.hpp"
#include "embed/python_error.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"
#include "hook/process_tracking.hpp"
#include "importscope/journal/run_layout.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <sysexits.h>
#include <unistd.h>

namespace importscope::embed {

namespace {

/// What Python children need to trace themselves: the run's settings, and the bootstrap directory
/// first on PYTHONPATH so that their site imports its sitecustomize.
void export_to_children(const WorkerPlan& plan)
{
    ::setenv(journal::k_env_run_dir, plan.run_dir.c_str(), 1);
    ::setenv(journal::k_env_match, journal::join_patterns(plan.match).c_str(), 1);
    ::setenv(journal::k_env_follow, plan.follow ? "1" : "0", 1);
    if (!plan.fallback_dynload.empty())
        ::setenv(journal::k_env_fallback_dynload, plan.fallback_dynload.c_str(), 1);
    if (plan.follow && !plan.bootstrap_dir.empty()) {
        const char* old = std::getenv("PYTHONPATH");
        const std::string path = old && *old ? plan.bootstrap_dir + ":" + old : plan.bootstrap_dir;
        ::setenv("PYTHONPATH", path.c_str(), 1);
    }
}

[[noreturn]] void fail(const std::string& message)
{
    fmt::print(stderr, "importscope: error: {}\n", message);
    (void)std::fflush(stderr); // about to _exit: nothing is left to tell
    ::_exit(EX_SOFTWARE);
}

} // namespace

[[noreturn]] void run_worker(const WorkerPlan& plan)
{
    hook::configure({plan.match, false, plan.fallback_dynload, plan.run_dir, plan.follow});
    if (plan.shared_journal)
        hook::JournalWriter::instance().offer_shared(plan.shared_journal, plan.shared_journal_capacity);
    journal::ProcessStart start;
    start.start_method = "main";
    start.ppid = static_cast<int>(::getppid());
    start.argv = target_argv(plan.target);
    start.executable = plan.python_executable;
    if (!hook::begin_process(std::move(start)))
        fail(fmt::format("cannot create a journal in {}", plan.run_dir));
    export_to_children(plan);
    hook::register_audit_hook();
    if (PyImport_AppendInittab(hook::k_module_name, hook::init_module) < 0)
        fail("cannot register the hook module");

    int status = EX_SOFTWARE;
    try {
        Interpreter interpreter(
            plan, [] { hook::install_finder(); },
            [] {
                hook::ensure_finder_first();
                hook::install_process_trackers();
            });
        status = interpreter.run_main();
    } catch (const std::exception& e) {
        fail(fmt::format("the hooks could not be installed: {}", e.what()));
    }
    (void)std::fflush(nullptr); // the target's status is what counts
    ::_exit(status);
}

} // namespace importscope::embed
