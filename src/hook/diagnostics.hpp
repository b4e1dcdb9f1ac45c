#pragma once

#include <Python.h>

#include <string>
#include <string_view>
#include <vector>

/// Facts the analysis needs to explain a finding, gathered inside the process at the moment they
/// are visible: aliases in sys.modules, and the owners of a type pybind11 refused to register
/// again.
namespace importscope::hook {

/// Before importing `name`, if its parent package's sys.modules entry is an alias (the module's
/// __name__ differs from the key), records the alias the first time it is used. Needs the GIL.
void note_parent_alias(PyObject* name);

/// On CPython 3.12 and later, watches sys.modules for a package stored under a key other than its
/// __name__, and keeps the stack that stored it for note_parent_alias (AliasSeen::set_by). False
/// on the versions before, which cannot tell. Needs the GIL.
bool watch_alias_writes();

/// After an import failed with pybind11's `generic_type: type "X" is already registered!`, records
/// which loaded modules expose a type named X. Needs the GIL.
void note_type_owners(const std::string& error_message);

/// The standard library's directories as sys.path names them (<prefix>/lib/pythonX.Y, its
/// lib-dynload and lib/pythonXY.zip, for sys.prefix, base_prefix, exec_prefix and base_exec_prefix),
/// unresolved. Needs the GIL.
std::vector<std::string> stdlib_directories();

/// Whether the top-level package of `module_name` is one of the standard library's
/// (sys.stdlib_module_names). Needs the GIL the first time.
bool is_stdlib_name(std::string_view module_name);

} // namespace importscope::hook
