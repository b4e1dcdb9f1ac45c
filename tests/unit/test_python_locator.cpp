#include "importscope/supervisor/python_locator.hpp"
#include "importscope/util/error.hpp"
#include "importscope/version.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

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

TEST_CASE("the interpreter importscope was built with is found and is not foreign", "[python]")
{
    const auto found = supervisor::locate_python(k_linked_python_executable);
    CHECK(found.major == k_linked_python_major);
    CHECK(found.minor == k_linked_python_minor);
    CHECK_FALSE(found.foreign);
}

TEST_CASE("a wrapper script is asked what it wraps", "[python]")
{
    TempDir dir;
    const auto shim = dir.path / "python3";
    write_executable(shim, std::string("#!/bin/sh\nexec ") + k_linked_python_executable + " \"$@\"\n");
    const auto found = supervisor::locate_python(shim.string());
    CHECK(found.executable == k_linked_python_executable);
    CHECK_FALSE(found.foreign);
}

TEST_CASE("another Python version is refused with both versions and the rebuild command", "[python]")
{
    TempDir dir;
    const auto fake = dir.path / "python";
    write_executable(fake, "#!/bin/sh\necho /opt/py/bin/python3.99; echo 3.99.1\n");
    try {
        supervisor::locate_python(fake.string());
        FAIL("a 3.99 interpreter was accepted");
    } catch (const Error& e) {
        const std::string message = e.what();
        CHECK(message.find("is Python 3.99") != std::string::npos);
        CHECK(message.find(fmt::format("built for Python {}.{}", k_linked_python_major, k_linked_python_minor)) !=
              std::string::npos);
        CHECK(message.find("-DPython3_EXECUTABLE=") != std::string::npos);
        CHECK(e.status() == ExitStatus::usage);
    }
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
