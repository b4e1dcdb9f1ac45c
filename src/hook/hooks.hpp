#pragma once

#include "capi/py_ref.hpp"

#include <Python.h>

#include <string>
#include <string_view>
#include <vector>

/// The hooks that run inside the traced process: a C audit hook that sees every extension's PyInit
/// and every uncaught exception, and a sys.meta_path finder that records matching modules and every
/// extension load with their outcome. Both write to the JournalWriter.
namespace importscope::hook {

struct HookSettings {
    std::vector<std::string> patterns; ///< substrings of dotted module names to record
    bool match_all = false;            ///< "*": record every module
    /// Last-resort directory of stdlib extension modules, for a --python installation whose
    /// binary has modules built in that the embedded libpython lacks. Empty: none.
    std::string fallback_dynload;
    std::string run_dir; ///< where each traced process writes its journal
    bool follow = true;  ///< record forked children too (exec'd ones follow through PYTHONPATH)
};

/// Sets what the hooks record; call before the interpreter starts.
void configure(HookSettings settings);
const HookSettings& settings();

/// Whether a module of this name is recorded by the finder.
bool matches(std::string_view module_name);

/// Registers the audit hook. Safe, and meant to be called, before the interpreter is initialized,
/// so that no import escapes it.
void register_audit_hook();

/// Name of the built-in module that holds the finder and loader types.
inline constexpr const char* k_module_name = "_importscope";

/// Init function of that module: for PyImport_AppendInittab in the embedded main process, and
/// the PyInit of the extension-module build that Python children load through the bootstrap.
PyObject* init_module();

/// Creates the finder type in the module (called by its init). False with a Python error set.
bool ready_finder_type(PyObject* module);

/// Puts the finder first on sys.meta_path. Needs the GIL; throws PythonError.
void install_finder();

/// The installed finder (borrowed), or null before install_finder().
PyObject* installed_finder();

/// Whether the installed finder is still on sys.meta_path. Needs the GIL.
bool finder_present();

/// importlib's PathFinder (borrowed; a reference kept for good), or null before importlib's
/// external part is in sys.modules (the finder is installed earlier, at the core's
/// initialization). Needs the GIL.
PyObject* path_finder();

/// importlib's `_LoaderBasics.create_module` (borrowed; a reference kept for good), which source
/// and bytecode loaders inherit and which returns None, for the default module creation; null
/// before importlib's external part is in sys.modules. Needs the GIL.
PyObject* default_create_module();

/// What the finder does with the spec another finder gave for `name`: the trackers' looks (an alias
/// used as a parent, the installation of a top-level name, one source under two names), and the
/// loader wrapped when the load is to be recorded. `by_path_finder`: PathFinder gave it along
/// sys.path. Returns the spec (a new reference); Python errors are cleared. Needs the GIL.
PyObject* take_spec(capi::PyRef spec, PyObject* name, bool by_path_finder);

/// Moves the finder back to the front of sys.meta_path if site or a .pth file inserted finders
/// ahead of it, so that it sees every import of the target; the finders put ahead of it later are
/// the target's (finders_ahead.hpp). Needs the GIL; throws PythonError.
void ensure_finder_first();

} // namespace importscope::hook
