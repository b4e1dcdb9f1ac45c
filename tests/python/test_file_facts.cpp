#include "hook/file_facts.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace importscope;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory()
{
    std::string pattern = (fs::temp_directory_path() / "importscope-facts-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()));
    return fs::canonical(pattern);
}

journal::FileIdentity identity_of(const fs::path& path)
{
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

} // namespace

TEST_CASE("file facts resolve symlinked directories and files to the real file", "[file-facts]")
{
    const fs::path root = fresh_directory();
    fs::create_directories(root / "real" / "pkg");
    std::ofstream(root / "real" / "pkg" / "_C.so") << "x";
    fs::create_directory_symlink(root / "real", root / "link");
    fs::create_symlink(root / "real" / "pkg" / "_C.so", root / "real" / "pkg" / "alias.so");
    const fs::path real_file = root / "real" / "pkg" / "_C.so";

    // Through a symlinked directory, twice: the second time from the directory's cached resolution.
    for (int i = 0; i < 2; ++i) {
        const hook::FileFacts facts = hook::file_facts((root / "link" / "pkg" / "_C.so").string());
        CHECK(facts.realpath == real_file.string());
        CHECK(facts.identity == identity_of(real_file));
    }
    // Directories below a symlinked one, each resolved from its parent's resolution; a symlinked
    // directory below a real one; a directory that is not there.
    fs::create_directories(root / "real" / "pkg" / "sub" / "deeper");
    std::ofstream(root / "real" / "pkg" / "sub" / "deeper" / "_D.so") << "x";
    fs::create_directory_symlink(root / "real" / "pkg" / "sub", root / "real" / "pkg" / "sub_link");
    const fs::path deep_file = root / "real" / "pkg" / "sub" / "deeper" / "_D.so";
    CHECK(hook::file_facts((root / "link" / "pkg" / "sub" / "deeper" / "_D.so").string()).realpath ==
          deep_file.string());
    CHECK(hook::file_facts((root / "link" / "pkg" / "sub_link" / "deeper" / "_D.so").string()).realpath ==
          deep_file.string());
    CHECK(hook::file_facts((root / "link" / "pkg" / "sub_link" / "deeper" / "_D.so").string()).identity ==
          identity_of(deep_file));
    CHECK(hook::file_facts((root / "link" / "nothing" / "deeper" / "_D.so").string()).realpath.empty());
    // A symlink to the file.
    const hook::FileFacts via_file_link = hook::file_facts((root / "real" / "pkg" / "alias.so").string());
    CHECK(via_file_link.realpath == real_file.string());
    CHECK(via_file_link.identity == identity_of(real_file));
    // Dots in the path.
    CHECK(hook::file_facts((root / "link" / "pkg" / ".." / "pkg" / "_C.so").string()).realpath == real_file.string());
    // A path relative to the working directory.
    const fs::path before = fs::current_path();
    fs::current_path(root / "link");
    const hook::FileFacts relative = hook::file_facts("pkg/_C.so");
    fs::current_path(before);
    CHECK(relative.realpath == real_file.string());
    // Nothing there: no facts.
    const hook::FileFacts missing = hook::file_facts((root / "link" / "pkg" / "gone.so").string());
    CHECK(missing.realpath.empty());
    CHECK_FALSE(missing.identity);
    CHECK(hook::file_facts("").realpath.empty());
    fs::remove_all(root);
}
