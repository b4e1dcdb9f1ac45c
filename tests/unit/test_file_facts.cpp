#include "importscope/collect/file_facts.hpp"

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
    collect::FileFacts facts_of;

    // Through a symlinked directory, twice: the second time from the directory's cached resolution.
    for (int i = 0; i < 2; ++i) {
        const collect::FileFacts::Facts facts = facts_of.of((root / "link" / "pkg" / "_C.so").string());
        CHECK(facts.realpath == real_file.string());
        CHECK(facts.identity == identity_of(real_file));
    }
    // Directories below a symlinked one, each resolved from its parent's resolution; a symlinked
    // directory below a real one; a directory that is not there.
    fs::create_directories(root / "real" / "pkg" / "sub" / "deeper");
    std::ofstream(root / "real" / "pkg" / "sub" / "deeper" / "_D.so") << "x";
    fs::create_directory_symlink(root / "real" / "pkg" / "sub", root / "real" / "pkg" / "sub_link");
    const fs::path deep_file = root / "real" / "pkg" / "sub" / "deeper" / "_D.so";
    CHECK(facts_of.of((root / "link" / "pkg" / "sub" / "deeper" / "_D.so").string()).realpath ==
          deep_file.string());
    CHECK(facts_of.of((root / "link" / "pkg" / "sub_link" / "deeper" / "_D.so").string()).realpath ==
          deep_file.string());
    CHECK(facts_of.of((root / "link" / "pkg" / "sub_link" / "deeper" / "_D.so").string()).identity ==
          identity_of(deep_file));
    CHECK(facts_of.of((root / "link" / "nothing" / "deeper" / "_D.so").string()).realpath.empty());
    // A symlink to the file.
    const collect::FileFacts::Facts via_file_link = facts_of.of((root / "real" / "pkg" / "alias.so").string());
    CHECK(via_file_link.realpath == real_file.string());
    CHECK(via_file_link.identity == identity_of(real_file));
    // Dots in the path.
    CHECK(facts_of.of((root / "link" / "pkg" / ".." / "pkg" / "_C.so").string()).realpath == real_file.string());
    // A path relative to the working directory: the traced process's, which is not this one's.
    const fs::path before = fs::current_path();
    fs::current_path(root / "link");
    const collect::FileFacts::Facts relative = facts_of.of("pkg/_C.so");
    fs::current_path(before);
    CHECK(relative.realpath.empty());
    CHECK_FALSE(relative.identity);
    // Nothing there: no facts.
    const collect::FileFacts::Facts missing = facts_of.of((root / "link" / "pkg" / "gone.so").string());
    CHECK(missing.realpath.empty());
    CHECK_FALSE(missing.identity);
    CHECK(facts_of.of("").realpath.empty());
    fs::remove_all(root);
}

TEST_CASE("the collector completes the file facts an event's writer left out, and keeps those it gave",
          "[file-facts]")
{
    const fs::path root = fresh_directory();
    fs::create_directories(root / "real" / "pkg");
    std::ofstream(root / "real" / "pkg" / "mod.py") << "x";
    std::ofstream(root / "real" / "pkg" / "_C.so") << "x";
    fs::create_directory_symlink(root / "real", root / "link");
    collect::FileFacts facts;

    journal::ImportBegin module;
    module.origin = (root / "link" / "pkg" / "mod.py").string();
    journal::Event begin = module;
    facts.complete(begin);
    CHECK(std::get<journal::ImportBegin>(begin).realpath == (root / "real" / "pkg" / "mod.py").string());
    CHECK(std::get<journal::ImportBegin>(begin).identity == identity_of(root / "real" / "pkg" / "mod.py"));

    journal::ExtensionLoad extension;
    extension.path = (root / "link" / "pkg" / "_C.so").string();
    journal::Event load = extension;
    facts.complete(load);
    CHECK(std::get<journal::ExtensionLoad>(load).realpath == (root / "real" / "pkg" / "_C.so").string());
    CHECK(std::get<journal::ExtensionLoad>(load).identity == identity_of(root / "real" / "pkg" / "_C.so"));

    journal::TypeOwners owners;
    for (const char* file : {"pkg/_C.so", "gone.so"}) {
        journal::TypeOwner owner;
        owner.file = (root / "link" / file).string();
        owners.owners.push_back(owner);
    }
    journal::Event owners_event = owners;
    facts.complete(owners_event);
    const auto& completed = std::get<journal::TypeOwners>(owners_event).owners;
    CHECK(completed[0].realpath == (root / "real" / "pkg" / "_C.so").string());
    CHECK(completed[1].realpath.empty());
    CHECK_FALSE(completed[1].identity);

    // What a journal says already (an older writer's, or another machine's) is kept as it is.
    module.realpath = "/elsewhere/mod.py";
    module.identity = journal::FileIdentity{1, 2};
    journal::Event given = module;
    facts.complete(given);
    CHECK(std::get<journal::ImportBegin>(given).realpath == "/elsewhere/mod.py");
    CHECK(std::get<journal::ImportBegin>(given).identity == journal::FileIdentity{1, 2});

    // An identity alone is the hooks' lstat of a file that is not a symlink (importlib's own stat):
    // kept, and the real path is its directory's, whether the file is still there or not.
    fs::remove(root / "real" / "pkg" / "mod.py");
    journal::ImportBegin found_by_importlib;
    found_by_importlib.origin = (root / "link" / "pkg" / "mod.py").string();
    found_by_importlib.identity = journal::FileIdentity{3, 4};
    journal::Event found = found_by_importlib;
    facts.complete(found);
    CHECK(std::get<journal::ImportBegin>(found).realpath == (root / "real" / "pkg" / "mod.py").string());
    CHECK(std::get<journal::ImportBegin>(found).identity == journal::FileIdentity{3, 4});
    journal::ExtensionLoad relative;
    relative.path = "pkg/_C.so";
    relative.identity = journal::FileIdentity{5, 6};
    journal::Event relative_load = relative;
    facts.complete(relative_load);
    CHECK(std::get<journal::ExtensionLoad>(relative_load).realpath.empty()); // the traced process's cwd
    CHECK(std::get<journal::ExtensionLoad>(relative_load).identity == journal::FileIdentity{5, 6});
    fs::remove_all(root);
}
