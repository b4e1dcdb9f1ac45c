#include "importscope/app/target_resolution.hpp"
#include "importscope/util/error.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sys/stat.h>

using importscope::Error;
using importscope::ExitStatus;
using importscope::app::is_python_name;
using importscope::app::parse_python_arguments;
using importscope::app::read_shebang;
using importscope::app::resolve_target;
using importscope::embed::TargetKind;
using Words = std::vector<std::string>;

namespace {

std::string write_file(const std::filesystem::path& path, const std::string& text, bool executable)
{
    std::ofstream(path) << text;
    ::chmod(path.c_str(), executable ? 0755 : 0644);
    return path.string();
}

} // namespace

TEST_CASE("python's command line is split as python splits it", "[target]")
{
    auto module = parse_python_arguments({"-X", "dev", "-u", "-m", "pytest", "-q", "-x"});
    CHECK(module.kind == TargetKind::module);
    CHECK(module.value == "pytest");
    CHECK(module.interpreter_options == Words{"-X", "dev", "-u"});
    CHECK(module.args == Words{"-q", "-x"});

    auto joined = parse_python_arguments({"-Wignore", "-uc", "print(1)", "a"});
    CHECK(joined.kind == TargetKind::command);
    CHECK(joined.value == "print(1)");
    CHECK(joined.interpreter_options == Words{"-Wignore", "-u"});
    CHECK(joined.args == Words{"a"});

    auto script = parse_python_arguments({"-I", "serve.py", "-m", "x"});
    CHECK(script.kind == TargetKind::script);
    CHECK(script.value == "serve.py");
    CHECK(script.interpreter_options == Words{"-I"});
    CHECK(script.args == Words{"-m", "x"});

    CHECK(parse_python_arguments({"-u"}).kind == TargetKind::stdin_script);
    CHECK(parse_python_arguments({"-", "a"}).args == Words{"a"});
}

TEST_CASE("interpreter names", "[target]")
{
    for (const char* name : {"python", "python3", "python3.11", "python3.13t", "python3.12d"})
        CHECK(is_python_name(name));
    for (const char* name : {"pythonista", "py", "ipython", "python3-config", "bash"})
        CHECK_FALSE(is_python_name(name));
}

TEST_CASE("a shebang names the interpreter, through env too", "[target]")
{
    importscope::testing::TempDir dir;
    const auto direct = read_shebang(write_file(dir.path / "a", "#!/usr/bin/python3 -u\nprint()\n", true));
    REQUIRE(direct);
    CHECK(direct->interpreter == "/usr/bin/python3");
    CHECK(direct->options == Words{"-u"});
    const auto env = read_shebang(write_file(dir.path / "b", "#!/usr/bin/env -S sh -e\n", true));
    REQUIRE(env);
    CHECK(env->interpreter.ends_with("sh"));
    CHECK(env->options == Words{"-e"});
    CHECK_FALSE(read_shebang(write_file(dir.path / "c", "print()\n", false)));
}

TEST_CASE("a file that is not Python is run as a program, never as Python", "[target]")
{
    importscope::testing::TempDir dir;
    const std::string shell = write_file(dir.path / "launch.sh", "#!/bin/sh\nexec python3 \"$@\"\n", true);
    auto resolved = resolve_target({shell, "", "", std::nullopt, {"x"}});
    CHECK(resolved.target.kind == TargetKind::program);
    CHECK(resolved.target.args == Words{"x"});
    CHECK(resolve_target({"/bin/true", "", "", std::nullopt, {}}).target.kind == TargetKind::program);

    const std::string tool = write_file(dir.path / "tool", "#!/usr/bin/python3.11\nprint()\n", true);
    resolved = resolve_target({"", "", "", tool, {"--flag"}});
    CHECK(resolved.target.kind == TargetKind::script);
    CHECK(resolved.interpreter == "/usr/bin/python3.11");
    CHECK(resolved.target.args == Words{"--flag"});

    const std::string source = write_file(dir.path / "plain.py", "print()\n", false);
    CHECK(resolve_target({source, "", "", std::nullopt, {}}).target.kind == TargetKind::script);
}

TEST_CASE("a missing command is 127, one that cannot run 126, as in a shell", "[target]")
{
    importscope::testing::TempDir dir;
    auto status_of = [](const importscope::app::TargetRequest& request) {
        try {
            resolve_target(request);
        } catch (const Error& e) {
            return e.status();
        }
        return ExitStatus::ok;
    };
    CHECK(status_of({"", "", "", std::string("no-such-command-xyz"), {}}) == ExitStatus::not_found);
    CHECK(status_of({"", "", "", (dir.path / "missing").string(), {}}) == ExitStatus::not_found);
    const std::string data = write_file(dir.path / "data", "not a program\n", false);
    CHECK(status_of({"", "", "", data, {}}) == ExitStatus::cannot_execute);
    CHECK(status_of({"", "", "", std::nullopt, {}}) == ExitStatus::usage);
}
