#pragma once

#include <Python.h>

#include <string>
#include <string_view>

/// Facts the analysis needs to explain a finding, gathered inside the process at the moment they
/// are visible: aliases in sys.modules, the owners of a type pybind11 refused to register again,
/// and other installations of a matching package.
namespace importscope::hook {

/// Before importing `name`, if its parent package's sys.modules entry is an alias (the module's
/// __name__ differs from the key), records the alias the first time it is used. Needs the GIL.
void note_parent_alias(PyObject* name);

/// After an import failed with pybind11's `generic_type: type "X" is already registered!`, records
/// which loaded modules expose a type named X. Needs the GIL.
void note_type_owners(const std::string& error_message);

/// Whether the top-level package of `module_name` is one of the standard library's
/// (sys.stdlib_module_names). Needs the GIL the first time.
bool is_stdlib_name(std::string_view module_name);

/// For each dotted component of `module_name` that matches --match, records once where a top-level
/// package of that name is importable from sys.path; for a top-level extension module, whatever the
/// patterns. Needs the GIL.
void note_installations(const std::string& module_name, bool is_extension);

} // namespace importscope::hook
