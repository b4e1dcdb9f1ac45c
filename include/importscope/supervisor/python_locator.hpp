#pragma once

// --python: the interpreter a target runs on, its version and ABI flags (from its file name, a venv's
// pyvenv.cfg, or by asking it), and the default interpreter when none is named.

#include <optional>
#include <string>

namespace importscope::supervisor {

/// The interpreter whose environment the target runs in.
struct PythonInstallation {
    std::string executable; ///< absolute path; becomes the target's sys.executable
    std::string realpath;   ///< the binary behind any symlinks
    int major = 0;
    int minor = 0;
    std::string abiflags; ///< "t" for a free-threaded build (python3.13t)
    /// How it was chosen, for messages: "--python", "the command's interpreter", "the default interpreter".
    std::string chosen_as = "--python";

    std::string described() const { return chosen_as + " " + executable; }
};

/// The default --python: the interpreter importscope was installed for (python3 or python in
/// `installed_beside`, the directory of an installed binary: a pip environment's bin/; not a pipx
/// environment's, which holds importscope alone),
/// else $VIRTUAL_ENV/bin/python when a virtual environment is active, else the first python3 on
/// PATH.
std::string default_python(const std::string& installed_beside = {});

/// Finds out what `path` is without starting it when its file name says so (python3.11, a venv's
/// pyvenv.cfg), else by asking it. Throws Error when it is not a usable Python.
PythonInstallation locate_python(const std::string& path);

/// The first executable regular file called `name` in the directories of $PATH, as a shell finds
/// it ("" when there is none).
std::string find_on_path(const std::string& name);

/// Parses "3.11" or "3.11.7" into (major, minor).
std::optional<std::pair<int, int>> parse_version(const std::string& text);

} // namespace importscope::supervisor
