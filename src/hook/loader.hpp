#pragma once

// The loader wrapper: a load's begin, outcome, duration and, for an extension, what its init warned
// (init_warnings.hpp); and _imp.create_dynamic and exec_dynamic replaced, so that an extension loaded
// by path, outside sys.meta_path, is recorded the same way (by_path).

#include <Python.h>

namespace importscope::hook {

/// Creates the loader-wrapper type; called once from the module's init. Returns false with a
/// Python error set on failure.
bool ready_loader_type(PyObject* module);

/// Replaces spec.loader with a wrapper that records the load (begin, outcome, duration) and then
/// gives the original loader back to the spec and module once the load is done. `kind` is
/// loader_kind(loader), found once by the finder. Returns false with a Python error set on failure.
bool wrap_spec_loader(PyObject* spec, PyObject* loader, PyObject* name, const char* kind);

/// Replaces _imp.create_dynamic and _imp.exec_dynamic with functions that record an extension
/// loaded by path, outside sys.meta_path (importlib.util.module_from_spec on a
/// spec_from_file_location spec), as the finder's wrapper records the others: a begin marked
/// by_path, its outcome, what its init warned. Needs the GIL and the loader type; throws
/// PythonError.
void record_loads_by_path();

/// "extension", "source", "bytecode", "namespace", "builtin", "frozen", "zip" or "other".
const char* loader_kind(PyObject* loader);

/// Records the import of a namespace package whose `spec` PathFinder gave without a loader (the
/// import system makes its NamespaceLoader and its module later, with no code to run): a begin and
/// an end at once, kind "namespace", origin its first directory. Python errors are cleared.
void record_namespace_package(PyObject* spec, PyObject* name);

} // namespace importscope::hook
