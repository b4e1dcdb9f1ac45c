#pragma once

#include <Python.h>

namespace importscope::hook {

/// Creates the loader-wrapper type; called once from the module's init. Returns false with a
/// Python error set on failure.
bool ready_loader_type(PyObject* module);

/// Replaces spec.loader with a wrapper that records the load (begin, outcome, duration) and then
/// gives the original loader back to the spec and module once the load is done. `kind` is
/// loader_kind(loader), found once by the finder. Returns false with a Python error set on failure.
bool wrap_spec_loader(PyObject* spec, PyObject* loader, PyObject* name, const char* kind);

/// "extension", "source", "bytecode", "namespace", "builtin", "frozen", "zip" or "other".
const char* loader_kind(PyObject* loader);

} // namespace importscope::hook
