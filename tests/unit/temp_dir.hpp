#pragma once

// A fresh temporary directory for a test, removed at its end.

#include <filesystem>
#include <stdlib.h>
#include <string>

namespace importscope::testing {

struct TempDir {
    TempDir()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "importscope-test-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::filesystem::path path;
};

} // namespace importscope::testing
