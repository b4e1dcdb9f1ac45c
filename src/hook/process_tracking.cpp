#include "hook/process_tracking.hpp"

#include "hook/diagnostics.hpp"
#include "hook/environment_reads.hpp"
#include "hook/failed_loads.hpp"
#include "hook/finders_ahead.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"
#include "hook/source_names.hpp"
#include "hook/sys_path_origins.hpp"

#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"
#include "importscope/journal/run_layout.hpp"
#include "importscope/util/clock.hpp"

#include <array>
#include <cassert>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <utility>

namespace importscope::hook {

using capi::PyRef;

namespace {

bool g_trackers_installed = false;

constexpr std::array k_fatal_signals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr std::array k_default_deadly_signals = {SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_previous[NSIG];

} // namespace

void record_process_end(const char* how, int code) noexcept
{
    (void)JournalWriter::instance().append_end(how, code);
}

namespace {

void on_process_exit(int status, void*)
{
    record_process_end("exit", status);
}

void on_fatal_signal(int signal)
{
    const int saved_errno = errno;
    record_process_end("signal", signal);
    // Hand the signal to whoever had it before (the default action: die with it).
    sigaction(signal, &g_previous[signal], nullptr);
    errno = saved_errno;
    (void)::raise(signal); // the default action now ends the process
}

void install_signal_recorder(int signal, bool only_if_default)
{
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0)
        return;
    if (only_if_default && current.sa_handler != SIG_DFL)
        return; // the target (or Python) handles it; its end is recorded elsewhere
    struct sigaction ours {};
    ours.sa_handler = on_fatal_signal;
    sigemptyset(&ours.sa_mask);
    ours.sa_flags = SA_ONSTACK | SA_NODEFER;
    sigaction(signal, &ours, &g_previous[signal]);
}

/// An alternate stack, so that a stack overflow's SIGSEGV can still be recorded.
void ensure_signal_stack()
{
    stack_t current{};
    if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE))
        return;
    static char stack_memory[64 * 1024];
    stack_t ours{};
    ours.ss_sp = stack_memory;
    ours.ss_size = sizeof stack_memory;
    sigaltstack(&ours, nullptr);
}

std::string orig_argv_text(std::vector<std::string>& argv)
{
    PyObject* orig = PySys_GetObject("orig_argv"); // borrowed
    if (!orig || !PyList_Check(orig))
        orig = PySys_GetObject("argv"); // borrowed
    std::string joined;
    if (orig && PyList_Check(orig))
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(orig); ++i) {
            argv.push_back(capi::to_utf8(PyList_GET_ITEM(orig, i)));
            joined += argv.back() + " ";
        }
    return joined;
}

std::string text_of_sys(const char* name)
{
    PyObject* value = PySys_GetObject(name); // borrowed
    return value && PyUnicode_Check(value) ? capi::to_utf8(value) : std::string{};
}

/// multiprocessing's own account of this process, when it is one of its workers: its Process's
/// name and target (multiprocessing.process._current_process, which has a _parent_process).
void note_worker_process()
{
    PyObject* process_module = PyDict_GetItemString(PyImport_GetModuleDict(), "multiprocessing.process"); // borrowed
    if (!process_module)
        return;
    // The main process has no parent in multiprocessing's eyes; each of its workers has one.
    PyRef current = PyRef::steal(PyObject_GetAttrString(process_module, "_current_process"));
    PyRef parent = PyRef::steal(PyObject_GetAttrString(process_module, "_parent_process"));
    if (!current || !parent || parent.get() == Py_None) {
        PyErr_Clear();
        return;
    }
    journal::WorkerProcess e;
    JournalWriter::instance().stamp(e);
    e.name = capi::attribute_text(current.get(), "name");
    PyRef target = PyRef::steal(PyObject_GetAttrString(current.get(), "_target"));
    if (target && target.get() != Py_None)
        e.target = capi::attribute_text(target.get(), "__module__") + "." +
                   capi::attribute_text(target.get(), "__qualname__");
    PyErr_Clear();
    JournalWriter::instance().append(std::move(e));
}

/// What only Python can tell as the process ends (atexit, os._exit), once per process.
void record_what_python_can_tell()
{
    static int recorded_for = 0;
    JournalWriter& journal = JournalWriter::instance();
    if (!journal.is_open() || recorded_for == journal.pid())
        return;
    recorded_for = journal.pid();
    resolve_failed_loads();
    note_worker_process();
    note_main_run_again();
}

} // namespace

bool begin_process(journal::ProcessStart e)
{
    if (settings().run_dir.empty() || !JournalWriter::instance().start(settings().run_dir))
        return false;
    JournalWriter& journal = JournalWriter::instance();
    e.pid = journal.pid();
    if (Py_IsInitialized() && e.argv.empty()) {
        orig_argv_text(e.argv);
        e.executable = text_of_sys("executable");
    }
    e.python_version = Py_GetVersion();
    e.python_version.resize(std::min(e.python_version.find(' '), e.python_version.size()));
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd))
        e.cwd = cwd;
    e.wall_ns = wall_ns();
    e.mono_ns = monotonic_ns();
    journal.append(std::move(e));
    return true;
}

void install_process_trackers()
{
    assert(PyGILState_Check());
    if (g_trackers_installed)
        return;
    g_trackers_installed = true;
    on_exit(on_process_exit, nullptr);
    ensure_signal_stack();
    for (int s : k_fatal_signals)
        install_signal_recorder(s, false);
    for (int s : k_default_deadly_signals)
        install_signal_recorder(s, true);

    PyRef module = capi::check(PyImport_ImportModule(k_module_name), "importing the hook module");
    PyRef os = capi::check(PyImport_ImportModule("os"), "importing os");
    PyRef posix = capi::check(PyImport_ImportModule("posix"), "importing posix");
    PyRef exit_function = capi::check(PyObject_GetAttrString(module.get(), "_exit"), "finding _exit");
    if (PyObject_SetAttrString(os.get(), "_exit", exit_function.get()) < 0 ||
        PyObject_SetAttrString(posix.get(), "_exit", exit_function.get()) < 0)
        throw capi::PythonError("wrapping os._exit");

    // At the end, before the interpreter finalizes, where each failed load's exception got to.
    PyRef atexit = capi::check(PyImport_ImportModule("atexit"), "importing atexit");
    PyRef at_exit = capi::check(PyObject_GetAttrString(module.get(), "_at_exit"), "finding the exit recorder");
    capi::check(PyObject_CallMethod(atexit.get(), "register", "O", at_exit.get()), "registering the exit recorder");

    PyRef after_fork = capi::check(PyObject_GetAttrString(module.get(), "_after_fork_child"), "finding the fork hook");
    PyRef register_at_fork =
        capi::check(PyObject_GetAttrString(os.get(), "register_at_fork"), "finding os.register_at_fork");
    PyRef kwargs = capi::check(Py_BuildValue("{s:O}", "after_in_child", after_fork.get()), "building arguments");
    PyRef args = capi::check(PyTuple_New(0), "building arguments");
    capi::check(PyObject_Call(register_at_fork.get(), args.get(), kwargs.get()), "registering the fork hook");
}

PyObject* start_child(PyObject*, PyObject*)
{
    if (JournalWriter::instance().is_open())
        Py_RETURN_NONE; // the embedded main process: already traced
    const char* run_dir = std::getenv(journal::k_env_run_dir);
    if (!run_dir || !*run_dir)
        Py_RETURN_NONE; // not under importscope (a stale PYTHONPATH): stay out of the way
    const char* match = std::getenv(journal::k_env_match);
    const char* fallback = std::getenv(journal::k_env_fallback_dynload);
    const char* follow = std::getenv(journal::k_env_follow);
    HookSettings s;
    s.patterns = journal::split_patterns(match ? match : "deep_gemm");
    s.fallback_dynload = fallback ? fallback : "";
    s.run_dir = run_dir;
    s.follow = !(follow && std::strcmp(follow, "0") == 0);
    configure(std::move(s));

    std::vector<std::string> argv;
    const std::string command_line = orig_argv_text(argv);
    const bool spawned = command_line.find("--multiprocessing-fork") != std::string::npos;
    journal::ProcessStart start;
    start.start_method = spawned ? "spawn" : "exec";
    start.ppid = static_cast<int>(::getppid());
    start.argv = std::move(argv);
    start.executable = text_of_sys("executable");
    if (!begin_process(std::move(start)))
        Py_RETURN_NONE;
    try {
        register_audit_hook();
        install_finder();
        watch_finders_ahead_from_now(); // a child's site and .pth files have run: ours is first
        watch_alias_writes();
        install_process_trackers();
        install_environment_reads();
        record_sys_path_at_start();
    } catch (capi::PythonError& e) {
        e.restore();
        return nullptr;
    }
    Py_RETURN_NONE;
}

PyObject* at_exit(PyObject*, PyObject*)
{
    record_what_python_can_tell();
    JournalWriter& journal = JournalWriter::instance();
    if (journal.is_open()) {
        journal::Finalizing finalizing;
        journal.append(journal.stamp(finalizing));
    }
    Py_RETURN_NONE;
}

PyObject* traced_exit(PyObject*, PyObject* status)
{
    const long code = PyLong_AsLong(status);
    if (code == -1 && PyErr_Occurred())
        return nullptr;
    record_what_python_can_tell();
    record_process_end("os._exit", static_cast<int>(code));
    ::_exit(static_cast<int>(code));
}

PyObject* after_fork_child(PyObject*, PyObject*)
{
    JournalWriter& journal = JournalWriter::instance();
    if (!journal.is_open())
        Py_RETURN_NONE;
    const int parent = journal.pid();
    if (!settings().follow) {
        journal.close();
        Py_RETURN_NONE;
    }
    // A child of the forkserver's server process was started by the forkserver method.
    journal::ProcessStart start;
    const bool from_forkserver = orig_argv_text(start.argv).find("multiprocessing.forkserver") != std::string::npos;
    start.start_method = from_forkserver ? "forkserver" : "fork";
    start.ppid = parent;
    start.executable = text_of_sys("executable");
    if (!begin_process(std::move(start)))
        journal.close(); // never write this child's events into the parent's journal
    forget_environment_reads();
    forget_sys_path();
    forget_source_names();
    Py_RETURN_NONE;
}

} // namespace importscope::hook
