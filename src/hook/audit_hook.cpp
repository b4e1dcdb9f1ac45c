// The C audit hook (hooks.hpp): `import` with a file name, just before an extension's PyInit (the
// authority on duplicate inits); `sys.excepthook`, an uncaught exception; and the programs a process
// starts (os.exec, os.posix_spawn, subprocess.Popen, os.system).

#include "hook/failed_loads.hpp"
#include "hook/finders_ahead.hpp"
#include "hook/hooks.hpp"
#include "hook/importlib_stats.hpp"
#include "hook/journal_writer.hpp"
#include "hook/process_tracking.hpp"
#include "hook/stack.hpp"

#include "capi/compat.hpp"
#include "capi/names.hpp"
#include "capi/python_error.hpp"
#include "importscope/journal/run_layout.hpp"
#include "importscope/util/clock.hpp"

#include <algorithm>
#include <dlfcn.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace importscope::hook {

namespace {

/// The `import` event with a file name: CPython is about to run that extension's PyInit. Raised by

/// Whether the library at `path` exports the init function of module `name` (PyInit_<last name>),
/// when it is loaded already, as it is for every load after the first. A file loaded under a name
/// it has no init for fails before any of its code runs ("dynamic module does not define module
/// export function"): no second init. Unknown (true) for a library not loaded yet and for a
/// non-ASCII name (PyInitU_, PEP 489).
bool exports_init(const std::string& path, const std::string& name)
{
    const std::string last = name.substr(name.rfind('.') + 1);
    if (std::any_of(last.begin(), last.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
        return true;
    void* library = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!library)
        return true;
    const bool exported = ::dlsym(library, ("PyInit_" + last).c_str()) != nullptr;
    ::dlclose(library); // the reference RTLD_NOLOAD took
    return exported;
}

/// _imp.create_dynamic, so it also sees loads that never pass through sys.meta_path.
void record_extension_load(PyObject* args)
{
    JournalWriter& journal = JournalWriter::instance();
    journal::ExtensionLoad e;
    journal.stamp(e);
    e.name = capi::to_utf8(PyTuple_GET_ITEM(args, 0));
    e.path = capi::to_utf8(PyTuple_GET_ITEM(args, 1));
    e.identity = identity_importlib_found(PyTuple_GET_ITEM(args, 1));
    e.no_init = !exports_init(e.path, e.name);
    e.stack = capture_import_stack();
    append_with_stack(std::move(e));

    // The audit hook cannot be removed; the finder can. Say so once, so that the report explains
    // why later imports have no outcome.
    static bool noted = false;
    if (!noted && Py_IsInitialized() && !finder_present() && capi::sys_attribute("meta_path")) {
        noted = true;
        journal::Note note;
        journal.stamp(note);
        note.text = "the import finder is no longer on sys.meta_path (the target removed or replaced it); "
                    "later extension loads were seen by the audit hook only, without their outcome";
        journal.append(std::move(note));
    }
}

/// `sys.excepthook` (hook, type, value, traceback): an exception is about to be reported as
/// uncaught, whichever excepthook the target installed.
void record_uncaught_exception(PyObject* args)
{
    PyObject* value = PyTuple_GET_ITEM(args, 2); // borrowed
    if (!value || value == Py_None || !PyExceptionInstance_Check(value))
        return;
    resolve_failed_loads(); // before: where a failed load's exception got to, this one or another
    JournalWriter& journal = JournalWriter::instance();
    const capi::DescribedException described = capi::describe_exception(value);
    journal::UncaughtException e;
    journal.stamp(e);
    e.exception = {described.type_name, described.message, described.traceback};
    journal.append(std::move(e));
    // python ends an uncaught KeyboardInterrupt by killing itself with SIGINT, after finalizing,
    // where no hook of ours can see it. A later end (exit() after all) replaces this one.
    if (PyErr_GivenExceptionMatches(value, PyExc_KeyboardInterrupt))
        record_process_end("signal", SIGINT);
}

std::vector<std::string> words_of(PyObject* args)
{
    std::vector<std::string> words;
    if (!args || args == Py_None)
        return words;
    if (PyUnicode_Check(args) || PyBytes_Check(args)) {
        words.push_back(capi::to_utf8(args));
        return words;
    }
    capi::PyRef items = capi::PyRef::steal(PySequence_Fast(args, "argv"));
    if (!items)
        return words;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(items.get()); ++i) {
        capi::PyRef text = capi::PyRef::steal(PyObject_Str(PySequence_Fast_GET_ITEM(items.get(), i)));
        words.push_back(text ? capi::to_utf8(text.get()) : std::string{});
    }
    return words;
}

/// os.exec (path, args, env), os.posix_spawn (path, argv, env), subprocess.Popen (executable, args,
/// cwd, env), os.system (command,): the process is starting another program.
/// Whether an environment given to a new program still leads a Python child to trace itself: it
/// names the run directory, and its PYTHONPATH holds the bootstrap directory.
std::string environment_verdict(PyObject* env) // borrowed
{
    if (!env || env == Py_None || !PyDict_Check(env))
        return {}; // inherited, or a mapping not worth guessing about
    const char* bootstrap = std::getenv(journal::k_env_bootstrap);
    PyObject* run_dir = PyDict_GetItemString(env, journal::k_env_run_dir); // borrowed
    PyObject* python_path = PyDict_GetItemString(env, "PYTHONPATH");      // borrowed
    const bool on_path = python_path && PyUnicode_Check(python_path) && bootstrap &&
                         capi::to_utf8(python_path).find(bootstrap) != std::string::npos;
    if (run_dir && on_path)
        return "kept";
    return run_dir ? "no-bootstrap-path" : "dropped"; // copied from os.environ, less PYTHONPATH
}

void record_program_start(const char* event, PyObject* args)
{
    JournalWriter& journal = JournalWriter::instance();
    journal::ProgramStart e;
    journal.stamp(e);
    e.via = event;
    PyObject* first = PyTuple_GET_ITEM(args, 0); // borrowed
    if (std::strcmp(event, "os.system") == 0) {
        e.argv = words_of(first);
    } else {
        e.argv = words_of(PyTuple_GET_SIZE(args) > 1 ? PyTuple_GET_ITEM(args, 1) : nullptr);
        if (first != Py_None) {
            capi::PyRef text = capi::PyRef::steal(PyObject_Str(first));
            e.executable = text ? capi::to_utf8(text.get()) : std::string{};
        } else if (!e.argv.empty()) {
            e.executable = e.argv.front();
        }
        // os.exec and os.posix_spawn: (path, args, env); subprocess.Popen: (executable, args, cwd, env).
        const Py_ssize_t env_at = std::strcmp(event, "subprocess.Popen") == 0 ? 3 : 2;
        if (PyTuple_GET_SIZE(args) > env_at)
            e.env = environment_verdict(PyTuple_GET_ITEM(args, env_at));
    }
    journal.append(std::move(e));
}

enum class Action { none, extension_load, watch_finders, uncaught, program };

/// Called for every audited operation in the process: decide cheaply, on the first byte first.
Action classify(const char* event, PyObject* args)
{
    if ((event[0] != 'i' && event[0] != 's' && event[0] != 'o') || !PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 1)
        return Action::none;
    if (std::strcmp(event, "import") == 0) {
        if (PyTuple_GET_SIZE(args) >= 2 && PyUnicode_Check(PyTuple_GET_ITEM(args, 1)))
            return Action::extension_load;
        // (name, None, sys.path, sys.meta_path, sys.path_hooks): an import about to ask the finders.
        return PyTuple_GET_SIZE(args) >= 4 && finders_ahead(PyTuple_GET_ITEM(args, 3)) ? Action::watch_finders
                                                                                       : Action::none;
    }
    if (std::strcmp(event, "sys.excepthook") == 0)
        return PyTuple_GET_SIZE(args) >= 4 ? Action::uncaught : Action::none;
    if (std::strcmp(event, "os.exec") == 0 || std::strcmp(event, "os.posix_spawn") == 0 ||
        std::strcmp(event, "subprocess.Popen") == 0 || std::strcmp(event, "os.system") == 0)
        return Action::program;
    return Action::none;
}

int audit_hook(const char* event, PyObject* args, void* /*user_data*/)
{
    const Action action = classify(event, args);
    if (action == Action::none || !JournalWriter::instance().is_open())
        return 0;

    // Whatever error state the caller is in is theirs: set it aside and put it back unchanged.
    PyObject* pending = capi::compat::fetch_exception();
    try {
        switch (action) {
        case Action::extension_load:
            record_extension_load(args);
            break;
        case Action::watch_finders:
            watch_finders_ahead(PyTuple_GET_ITEM(args, 3));
            break;
        case Action::uncaught:
            record_uncaught_exception(args);
            break;
        case Action::program:
            record_program_start(event, args);
            break;
        case Action::none:
            break;
        }
    } catch (...) {
        // Recording must never change what the target does.
    }
    PyErr_Clear();
    if (pending)
        capi::compat::restore_exception(pending);
    return 0;
}

} // namespace

void register_audit_hook()
{
    static bool registered = false; // once per process: a hook cannot be removed
    if (!registered)
        registered = PySys_AddAuditHook(audit_hook, nullptr) == 0;
}

} // namespace importscope::hook
