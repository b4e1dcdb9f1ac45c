#pragma once

#include "hook/loader.hpp"

#include <Python.h>

/// One source file found under two module names in one process (the double import trap), whatever
/// --match records: the finder remembers the file of every source module it finds, at the cost of a
/// hash, and records in full the import that finds a file again under another name.
namespace importscope::hook {

/// Called by the finder for each source or bytecode module it finds (`loader`: its spec's),
/// `recorded` saying whether its load will be recorded anyway. True when the file was found before
/// under another name: this import is to be recorded, and the earlier one, if it was not, has just
/// been journalled late (a begin and an end marked `late`, without a stack, with its own loader's
/// class) while its module is in sys.modules. Needs the GIL; never raises.
bool found_under_another_name(PyObject* spec, PyObject* name, PyObject* loader, LoaderKind kind, bool recorded);

/// In a forked child: its journal is new, so the files found before it are not in it.
void forget_source_names();

/// As the process ends: when the main module's file (a script's `__file__`, `python -m`'s
/// `__spec__.origin`) was found under a module name that sys.modules still holds from that file,
/// the file ran twice, as that module and as `__main__` (a script that a module it imports imports
/// by name; `python -m pkg.mod` whose package imports mod). Journals a late record of each, so that
/// duplicate-source-exec finds them. Needs the GIL; never raises.
void note_main_run_again();

} // namespace importscope::hook
