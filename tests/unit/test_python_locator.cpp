#include "importscope/supervisor/python_locator.hpp"
#include "importscope/supervisor/python_runtime.hpp"
#include "importscope/util/error.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace importscope;

namespace {

using testing::TempDir;

void write_executable(const std::filesystem::path& path, const std::string& text)
{
    std::ofstream(path) << text;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

} // namespace

TEST_CASE("versions parse from python's own spellings", "[python]")
{
    CHECK(supervisor::parse_version("3.11.7") == std::pair{3, 11});
    CHECK(supervisor::parse_version("3.12") == std::pair{3, 12});
    CHECK(supervisor::parse_version(" 3.13t (free-threaded)\n") == std::pair{3, 13}); // a pyvenv.cfg value
    CHECK_FALSE(supervisor::parse_version("eleven"));
    CHECK_FALSE(supervisor::parse_version("3."));
    CHECK_FALSE(supervisor::parse_version("3.x"));
    CHECK_FALSE(supervisor::parse_version("-3.11"));
    CHECK_FALSE(supervisor::parse_version("3.-1"));
    CHECK_FALSE(supervisor::parse_version(""));
}

TEST_CASE("the test interpreter is found with its version, and its own shared libpython", "[python]")
{
    const auto found = supervisor::locate_python(IMPORTSCOPE_TEST_PYTHON);
    CHECK(fmt::format("{}.{}", found.major, found.minor) == IMPORTSCOPE_TEST_PYTHON_MINOR);
    CHECK(found.abiflags.empty());
    CHECK(supervisor::find_libpython(found) == IMPORTSCOPE_TEST_LIBPYTHON);
}

TEST_CASE("a wrapper script is asked what it wraps", "[python]")
{
    TempDir dir;
    const auto shim = dir.path / "python3";
    write_executable(shim, std::string("#!/bin/sh\nexec ") + IMPORTSCOPE_TEST_PYTHON + " \"$@\"\n");
    const auto found = supervisor::locate_python(shim.string());
    CHECK(found.executable == IMPORTSCOPE_TEST_PYTHON);
    CHECK(fmt::format("{}.{}", found.major, found.minor) == IMPORTSCOPE_TEST_PYTHON_MINOR);
}

namespace {

/// A runtime directory with workers for the given minors (empty files: only their names count).
void make_runtime_dir(const std::filesystem::path& dir, std::initializer_list<const char*> minors)
{
    for (const char* minor : minors) {
        std::filesystem::create_directories(dir / fmt::format("cpython-{}", minor));
        std::ofstream(dir / fmt::format("cpython-{}", minor) / "worker.so") << "";
    }
}

supervisor::PythonInstallation installation(const std::filesystem::path& prefix, int minor, std::string abiflags = "")
{
    supervisor::PythonInstallation python;
    python.executable = (prefix / "bin" / fmt::format("python3.{}{}", minor, abiflags)).string();
    python.realpath = python.executable;
    python.major = 3;
    python.minor = minor;
    python.abiflags = std::move(abiflags);
    return python;
}

} // namespace

TEST_CASE("the workers are listed in version order", "[python]")
{
    TempDir dir;
    make_runtime_dir(dir.path, {"3.13", "3.10", "3.9", "3.11"});
    std::filesystem::create_directories(dir.path / "cpython-3.12"); // no worker.so in it
    CHECK(supervisor::available_minors(dir.path.string()) == std::vector<std::string>{"3.9", "3.10", "3.11", "3.13"});
    CHECK(supervisor::available_minors((dir.path / "missing").string()).empty());
}

TEST_CASE("a minor without a worker is refused with the versions importscope has", "[python]")
{
    TempDir dir;
    make_runtime_dir(dir.path, {"3.11", "3.12"});
    try {
        supervisor::choose_runtime(installation(dir.path, 14), dir.path.string());
        FAIL("a 3.14 interpreter was accepted");
    } catch (const Error& e) {
        const std::string message = e.what();
        CHECK(message.find("is Python 3.14") != std::string::npos);
        CHECK(message.find("it has: 3.11, 3.12") != std::string::npos);
        CHECK(message.find("pip install") != std::string::npos);
        CHECK(e.status() == ExitStatus::tool_failure);
    }
}

TEST_CASE("a free-threaded build is refused, never taken for its minor", "[python]")
{
    TempDir dir;
    make_runtime_dir(dir.path, {"3.13"});
    try {
        supervisor::choose_runtime(installation(dir.path, 13, "t"), dir.path.string());
        FAIL("python3.13t was accepted");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("free-threaded CPython (3.13t)") != std::string::npos);
    }
}

TEST_CASE("a free-threaded interpreter is known by its file name", "[python]")
{
    TempDir dir;
    std::filesystem::create_directories(dir.path / "bin");
    const auto python = dir.path / "bin" / "python3.13t";
    write_executable(python, std::string("\x7f") + "ELF"); // an ELF file is not run, only named
    const auto found = supervisor::locate_python(python.string());
    CHECK(found.minor == 13);
    CHECK(found.abiflags == "t");
}

TEST_CASE("the installation's own libpython is found in lib/ or lib/<multiarch>/", "[python]")
{
    TempDir dir;
    make_runtime_dir(dir.path / "runtime", {"3.12"});
    const auto python = installation(dir.path / "pyenv", 12);
    std::filesystem::create_directories(dir.path / "pyenv" / "lib");
    std::ofstream(dir.path / "pyenv" / "lib" / "libpython3.12.so.1.0") << "";
    auto runtime = supervisor::choose_runtime(python, (dir.path / "runtime").string());
    CHECK(runtime.libpython == (dir.path / "pyenv" / "lib" / "libpython3.12.so.1.0").string());
    CHECK_FALSE(runtime.own_build);
    CHECK(runtime.minor == "3.12");

    const auto debian = installation(dir.path / "usr", 12);
    std::filesystem::create_directories(dir.path / "usr" / "lib" / "x86_64-linux-gnu");
    std::ofstream(dir.path / "usr" / "lib" / "x86_64-linux-gnu" / "libpython3.12.so.1.0") << "";
    CHECK(supervisor::find_libpython(debian) ==
          (dir.path / "usr" / "lib" / "x86_64-linux-gnu" / "libpython3.12.so.1.0").string());
}

TEST_CASE("a static interpreter runs on the worker's build, or is refused when that has none either", "[python]")
{
    TempDir dir;
    make_runtime_dir(dir.path / "runtime", {"3.12"});
    const auto python = installation(dir.path / "static", 12);
    const auto build_lib = dir.path / "build" / "libpython3.12.so.1.0";
    std::filesystem::create_directories(dir.path / "build");
    std::ofstream(build_lib) << "";
    std::ofstream(dir.path / "runtime" / "cpython-3.12" / "build.json")
        << nlohmann::json{{"version", "3.12.1"}, {"executable", "/opt/py/bin/python3.12"},
                          {"libpython", build_lib.string()}, {"dynload", "/opt/py/lib/python3.12/lib-dynload"}};
    auto runtime = supervisor::choose_runtime(python, (dir.path / "runtime").string());
    CHECK(runtime.own_build);
    CHECK(runtime.libpython == build_lib.string());
    CHECK(runtime.build_version == "3.12.1");
    CHECK(runtime.build_dynload == "/opt/py/lib/python3.12/lib-dynload");

    std::filesystem::remove(build_lib);
    CHECK_THROWS_WITH(supervisor::choose_runtime(python, (dir.path / "runtime").string()),
                      Catch::Contains("has no shared libpython"));
}

TEST_CASE("something that is not Python is refused", "[python]")
{
    TempDir dir;
    const auto fake = dir.path / "notpython";
    write_executable(fake, "#!/bin/sh\nexit 1\n");
    CHECK_THROWS_WITH(supervisor::locate_python(fake.string()), Catch::Contains("is not a working Python"));
    CHECK_THROWS_WITH(supervisor::locate_python((dir.path / "missing").string()),
                      Catch::Contains("no such executable"));
}
