#pragma once

// Shared by the tests that run inside the one embedded interpreter owned by main().

#include "importscope/journal/reader.hpp"

#include <filesystem>
#include <string>

namespace importscope::testing {

/// The journal the hooks of this test process write to.
const std::filesystem::path& journal_path();

/// Everything recorded so far.
journal::JournalContents recorded();

/// Runs Python code in __main__; true when it raised nothing.
bool run_python(const std::string& code);

/// A new directory with a package tree for the test, put first on sys.path.
std::filesystem::path make_package_dir();

/// The identity (st_dev, st_ino) of the file `path` names, symlinks followed.
journal::FileIdentity identity_of(const std::filesystem::path& path);

} // namespace importscope::testing
