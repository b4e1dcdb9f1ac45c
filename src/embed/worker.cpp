// importscope_worker_main, the one symbol worker.so exports (worker.map): pre-initialization, the
// journal and the audit hook, _importscope built in, the interpreter with the finder put in at core
// init and the trackers after site, the start handshake, then the target; it exits with the target's
// status, and no exception leaves it.

#include "importscope/embed/worker.hpp"

#include "embed/interpreter.hpp"
#include "hook/diagnostics.hpp"
#include "hook/environment_reads.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"
#include "hook/process_tracking.hpp"
#include "hook/sys_path_origins.hpp"

#include "importscope/util/console.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sysexits.h>
#include <unistd.h>

namespace importscope::embed {

namespace {

StartChannel g_start{-1}; ///< the start channel, until the handshake is written

/// A start-up that CPython ended: an exit its options asked for (python --version) is the target's
/// own; an error (a PYTHONHOME without a stdlib) is importscope's failure to start the target.
void on_failed_startup(const PyStatus& status)
{
    if (PyStatus_IsExit(status)) {
        g_start.tell(start_word::exited, std::to_string(status.exitcode));
        return;
    }
    std::string message = "the embedded Python interpreter did not start";
    if (status.func)
        message += fmt::format(": {}", status.func);
    if (status.err_msg)
        message += fmt::format(": {}", status.err_msg);
    g_start.tell(start_word::failed, message);
}

[[noreturn]] void run_worker(const WorkerPlan& plan, int start_fd)
{
    g_start = StartChannel(start_fd);
    on_startup_failure(on_failed_startup);
    preinitialize(plan);
    hook::configure({plan.match, false, plan.fallback_dynload, plan.run_dir, plan.follow});
    if (plan.shared_journal)
        hook::JournalWriter::instance().offer_shared(plan.shared_journal);
    journal::ProcessStart start;
    start.start_method = "main";
    start.ppid = static_cast<int>(::getppid());
    start.argv = python_command_line(plan.python_executable, plan.target);
    start.executable = plan.python_executable;
    if (!hook::begin_process(std::move(start)))
        g_start.fail(fmt::format("cannot create a journal in {}: {}", plan.run_dir, std::strerror(errno)));
    hook::register_audit_hook();
    if (PyImport_AppendInittab(hook::k_module_name, hook::init_module) < 0)
        g_start.fail("cannot register the hook module");

    int status = EX_SOFTWARE;
    try {
        Interpreter interpreter(
            plan,
            [] {
                hook::install_finder();
                hook::watch_alias_writes();
            },
            [] {
                hook::ensure_finder_first();
                hook::install_process_trackers();
                hook::install_environment_reads();
                hook::record_sys_path_at_start();
            });
        g_start.tell(start_word::ready);
        status = interpreter.run_main();
    } catch (const std::exception& e) {
        g_start.fail(fmt::format("the hooks could not be installed: {}", e.what()));
    }
    (void)std::fflush(nullptr); // the target's status is what counts
    ::_exit(status);
}

} // namespace

} // namespace importscope::embed

extern "C" __attribute__((visibility("default"))) void importscope_worker_main(
    const importscope::embed::WorkerPlan* plan, int start_fd)
{
    // The worker's boundary: it carries its own C++ runtime, so no exception may leave it.
    try {
        importscope::embed::run_worker(*plan, start_fd);
    } catch (...) {
        importscope::embed::g_start.fail("the worker failed before the target started");
    }
}
