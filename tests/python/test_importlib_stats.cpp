// importlib's _path_stat as the hooks replace it (hook/importlib_stats.hpp): what importlib and the
// target see of it, and the identities the records take from it.

#include "python_fixture.hpp"

#include "importscope/journal/event.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace importscope;
namespace fs = std::filesystem;

namespace {

// A temporary's events would leave the returned pointer dangling.
const journal::ImportBegin* begin_of(const journal::JournalContents&& contents, const std::string& name) = delete;
const journal::ImportBegin* begin_of(const journal::JournalContents& contents, const std::string& name)
{
    const journal::ImportBegin* found = nullptr;
    for (const auto& e : contents.events)
        if (const auto* begin = std::get_if<journal::ImportBegin>(&e); begin && begin->name == name)
            found = begin; // the last one
    return found;
}

} // namespace

TEST_CASE("importlib's _path_stat answers as os.stat does, for files, symlinks and what is not there",
          "[importlib-stats]")
{
    const fs::path dir = testing::make_package_dir() / "stat_cases";
    fs::create_directories(dir);
    std::ofstream(dir / "file.py") << "x = 1\n";
    fs::create_symlink(dir / "file.py", dir / "link.py");
    fs::create_symlink(dir / "nowhere.py", dir / "dangling.py");
    fs::create_directory_symlink(dir, dir / "dir_link");
    REQUIRE(testing::run_python("import _frozen_importlib_external as e, os, types\n"
                                "assert isinstance(e._path_stat, types.BuiltinFunctionType), e._path_stat\n"
                                "d = " +
                                ("'" + dir.string() + "'") +
                                "\n"
                                "for name in ('file.py', 'link.py', 'dir_link', 'dir_link/file.py', ''):\n"
                                "    p = os.path.join(d, name)\n"
                                "    assert e._path_stat(p) == os.stat(p), p\n"
                                "for name in ('dangling.py', 'missing.py'):\n"
                                "    p = os.path.join(d, name)\n"
                                "    try:\n"
                                "        e._path_stat(p)\n"
                                "    except FileNotFoundError as error:\n"
                                "        assert error.filename == p, error\n"
                                "    else:\n"
                                "        raise AssertionError(p)\n"
                                "for bad in (None, 3.5):\n"
                                "    try:\n"
                                "        e._path_stat(bad)\n"
                                "    except TypeError:\n"
                                "        pass\n"
                                "    else:\n"
                                "        raise AssertionError(bad)\n"));
}

TEST_CASE("a record takes its file's identity from importlib's stat, and leaves a symlinked file to the supervisor",
          "[importlib-stats]")
{
    const fs::path dir = testing::make_package_dir();
    fs::create_directories(dir / "deep_gemm_stats");
    std::ofstream(dir / "deep_gemm_stats" / "__init__.py") << "";
    std::ofstream(dir / "deep_gemm_stats" / "plain.py") << "";
    std::ofstream(dir / "deep_gemm_stats" / "target.py") << "";
    fs::create_symlink(dir / "deep_gemm_stats" / "target.py", dir / "deep_gemm_stats" / "linked.py");
    // The file is gone before anything reads the journal: the identity was taken at the import.
    REQUIRE(testing::run_python("import os, deep_gemm_stats.plain, deep_gemm_stats.linked\n"
                                "os.remove(deep_gemm_stats.plain.__file__)\n"));
    const journal::JournalContents contents = testing::recorded();

    const journal::ImportBegin* package = begin_of(contents, "deep_gemm_stats");
    REQUIRE(package);
    CHECK(package->identity == testing::identity_of(dir / "deep_gemm_stats" / "__init__.py"));
    const journal::ImportBegin* plain = begin_of(contents, "deep_gemm_stats.plain");
    REQUIRE(plain);
    CHECK(plain->origin == (dir / "deep_gemm_stats" / "plain.py").string());
    CHECK(plain->identity);
    CHECK(plain->realpath.empty()); // its directory's, which the supervisor resolves
    const journal::ImportBegin* linked = begin_of(contents, "deep_gemm_stats.linked");
    REQUIRE(linked);
    CHECK_FALSE(linked->identity); // a symlink: the supervisor resolves it whole
    CHECK(linked->realpath.empty());
}

TEST_CASE("a target that gives importlib another _os gets importlib's own behaviour back", "[importlib-stats]")
{
    const fs::path dir = testing::make_package_dir();
    fs::create_directories(dir / "deep_gemm_fake_os");
    std::ofstream(dir / "deep_gemm_fake_os" / "__init__.py") << "";
    // As a fake file system does: every stat importlib makes goes through the _os it was given.
    REQUIRE(testing::run_python("import _frozen_importlib_external as e, sys\n"
                                "real_os = e._os\n"
                                "class CountingOs:\n"
                                "    stats = 0\n"
                                "    def __getattr__(self, name):\n"
                                "        return getattr(real_os, name)\n"
                                "    def stat(self, path, *args, **kwargs):\n"
                                "        CountingOs.stats += 1\n"
                                "        return real_os.stat(path, *args, **kwargs)\n"
                                "e._os = CountingOs()\n"
                                "sys.path_importer_cache.clear()\n"
                                "try:\n"
                                "    import deep_gemm_fake_os\n"
                                "finally:\n"
                                "    e._os = real_os\n"
                                "assert CountingOs.stats > 0, CountingOs.stats\n"));
    const journal::JournalContents contents = testing::recorded();
    const journal::ImportBegin* begin = begin_of(contents, "deep_gemm_fake_os");
    REQUIRE(begin);
    CHECK_FALSE(begin->identity); // the fake's answer is not taken for the file's
}
