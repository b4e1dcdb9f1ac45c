#pragma once

#include <Python.h>

#include "importscope/journal/event.hpp"

#include <string>
#include <vector>

namespace importscope::hook {

/// The lines of the loaded modules' source files that may store a package under the sys.modules
/// key `key` (`sys.modules["key"] = ...`, `sys.modules.setdefault("key", ...)`, an `update` with
/// `"key": ...`): lines that store under the quoted key and name `modules`, found by reading each loaded module's
/// `.py` file as text, the standard library's left out. For CPython 3.10 and 3.11, where nothing
/// tells a program of a store into sys.modules. No Python code runs (the module dicts are read
/// directly); at most a few lines. Each file is read once per process, the first time an alias is
/// looked for after its module loaded, and only its lines naming `modules` are kept; a bounded
/// number of bytes in all. Needs the GIL.
std::vector<journal::Frame> alias_lines_in_code(const std::string& key);

} // namespace importscope::hook
