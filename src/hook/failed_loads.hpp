#pragma once

#include <Python.h>

#include <cstdint>

/// Extensions that failed to load, for the report to say when the program carried on without
/// them: a submodule whose package holds a build for another interpreter only, and where the
/// exception of a load that raised was caught.
namespace importscope::hook {

/// After no finder found `name` in `search_path` (its parent package's __path__): records the
/// extensions of that name there that this interpreter does not load (other ABI tags), if any.
/// Needs the GIL.
void note_missing_build(PyObject* name, PyObject* search_path);

/// After the recorded extension import `id` raised `exception`: keeps the exception until its
/// traceback shows where it was caught (resolve_failed_loads). Needs the GIL.
void hold_failed_load(std::uint64_t id, PyObject* exception);

/// Records, for each failed load held, the outermost frame its exception has reached, and lets go
/// of it, except `propagating` (the exception an import is raising right now, still on its way
/// out). Called at the process's next recorded event and at its end. Needs the GIL.
void resolve_failed_loads(PyObject* propagating = nullptr);

} // namespace importscope::hook
