#pragma once

#include "importscope/supervisor/python_locator.hpp"

#include <string>
#include <vector>

namespace importscope::supervisor {

/// What a Python target runs on: importscope's worker for the interpreter's minor and the libpython
/// it is loaded after.
struct PythonRuntime {
    std::string minor;            ///< "3.11"
    std::string worker;           ///< <runtime dir>/cpython-3.11/worker.so
    std::string libpython;        ///< the library the target runs on
    /// The interpreter has no shared libpython of its own (a static build): the target runs on the
    /// libpython of the interpreter importscope's worker was built with, over the chosen
    /// installation's stdlib and site-packages.
    bool own_build = false;
    std::string build_executable; ///< with own_build: that interpreter
    std::string build_version;    ///< with own_build: its version, major.minor.micro
    std::string build_dynload;    ///< with own_build: its stdlib extension directory, the last resort
};

/// The minors ("3.10", "3.11", ...) importscope has a worker for in `runtime_dir`, in order.
std::vector<std::string> available_minors(const std::string& runtime_dir);

/// The installation's own shared libpython ("" for a static build): lib/ or lib/<multiarch>/ of
/// the prefix its real executable is in, as CPython installs it (pyenv, Debian, python:3.x
/// images, conda, uv's builds).
std::string find_libpython(const PythonInstallation& python);

/// The runtime for `python`, or Error (a tool failure) naming the versions importscope has when
/// there is no worker for its minor, when it is a free-threaded build, or when neither it nor the
/// worker's build has a shared libpython.
PythonRuntime choose_runtime(const PythonInstallation& python, const std::string& runtime_dir);

} // namespace importscope::supervisor
