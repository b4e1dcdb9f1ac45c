#pragma once

#include <string>

namespace importscope::cli {

/// The directory with the children's bootstrap (sitecustomize.py and the _importscope extension):
/// beside the binary in a build tree (importscope-bootstrap/), or <prefix>/lib/importscope/bootstrap
/// for an installed binary. Throws Error when it is missing.
std::string find_bootstrap_dir();

/// The directory with importscope's data (known-issues.json, fingerprint.py): importscope-data/
/// beside the binary in a build tree, or <prefix>/share/importscope. Empty when missing.
std::string find_data_dir();

} // namespace importscope::cli
