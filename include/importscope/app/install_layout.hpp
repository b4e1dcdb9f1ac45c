#pragma once

#include <string>
#include <vector>

namespace importscope::app {

/// Where importscope's parts are, found from the binary's real location. An installation
/// (cmake --install, pip, pipx) is <prefix>/bin/importscope with <prefix>/lib/importscope/ and
/// <prefix>/share/importscope/; a build tree has the binary at its top with lib/ and share/ beside it.
struct InstallLayout {
    std::string binary_dir;   ///< the directory of the real binary
    std::string runtime_dir;  ///< lib/importscope: a cpython-3.X/ directory per worker, and bootstrap/
    std::string data_dir;     ///< share/importscope: known-issues.json, fingerprint.py ("" when missing)
    bool installed = false;   ///< an installation's bin/, not a build tree
};

InstallLayout find_install_layout();

/// The children's bootstrap directory (sitecustomize.py and an _importscope extension per minor).
/// Throws Error when it is missing.
std::string bootstrap_dir(const InstallLayout& layout);

/// The CPython minors this installation has a worker for ("3.10", "3.11", ...), ascending.
std::vector<std::string> worker_minors(const InstallLayout& layout);

} // namespace importscope::app
