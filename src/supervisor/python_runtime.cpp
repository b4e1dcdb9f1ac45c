#include "importscope/supervisor/python_runtime.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace importscope::supervisor {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_worker_prefix = "cpython-";

/// The facts of the interpreter a worker was built with (cmake/ImportscopePython.cmake).
nlohmann::json read_build_facts(const fs::path& file)
{
    std::ifstream in(file);
    nlohmann::json facts = nlohmann::json::parse(in, nullptr, false);
    return facts.is_object() ? facts : nlohmann::json::object();
}

std::string no_worker_message(const PythonInstallation& python, const std::vector<std::string>& minors)
{
    const std::string have = minors.empty() ? "none" : fmt::format("{}", fmt::join(minors, ", "));
    return fmt::format("{} is Python {}.{}, and this importscope has no worker for it (it has: {}); "
                       "install importscope for that interpreter (in a clone: \"{} -m pip install .\"), or build "
                       "it with -DIMPORTSCOPE_PYTHONS=\"...;{}\"",
                       python.described(), python.major, python.minor, have, python.executable, python.executable);
}

} // namespace

std::vector<std::string> available_minors(const std::string& runtime_dir)
{
    std::vector<std::string> minors;
    std::error_code ec;
    for (fs::directory_iterator it(runtime_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with(k_worker_prefix) && fs::exists(it->path() / "worker.so", ec))
            minors.push_back(name.substr(k_worker_prefix.size()));
    }
    std::sort(minors.begin(), minors.end(), [](const std::string& a, const std::string& b) {
        return parse_version(a) < parse_version(b);
    });
    return minors;
}

std::string find_libpython(const PythonInstallation& python)
{
    const fs::path prefix = fs::path(python.realpath).parent_path().parent_path();
    const std::string name = fmt::format("libpython{}.{}{}.so.1.0", python.major, python.minor, python.abiflags);
    std::error_code ec;
    for (const fs::path& dir : {prefix / "lib", prefix / "lib64"})
        if (fs::is_regular_file(dir / name, ec))
            return fs::canonical(dir / name, ec).string();
    // Debian and Ubuntu: lib/<multiarch>/ (x86_64-linux-gnu, aarch64-linux-gnu, ...).
    for (fs::directory_iterator it(prefix / "lib", ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().find("-linux-") != std::string::npos &&
            fs::is_regular_file(it->path() / name, ec))
            return fs::canonical(it->path() / name, ec).string();
    return {};
}

PythonRuntime choose_runtime(const PythonInstallation& python, const std::string& runtime_dir)
{
    if (python.abiflags.find('t') != std::string::npos)
        throw Error(fmt::format("{} is a free-threaded CPython ({}.{}{}), which importscope does not "
                                "support yet; use the interpreter with the GIL (python{}.{})",
                                python.described(), python.major, python.minor, python.abiflags, python.major,
                                python.minor),
                    ExitStatus::tool_failure);
    PythonRuntime runtime;
    runtime.minor = fmt::format("{}.{}", python.major, python.minor);
    const fs::path dir = fs::path(runtime_dir) / fmt::format("{}{}", k_worker_prefix, runtime.minor);
    std::error_code ec;
    if (runtime_dir.empty() || !fs::exists(dir / "worker.so", ec))
        throw Error(no_worker_message(python, available_minors(runtime_dir)), ExitStatus::tool_failure);
    runtime.worker = (dir / "worker.so").string();
    runtime.libpython = find_libpython(python);
    if (!runtime.libpython.empty())
        return runtime;
    const nlohmann::json facts = read_build_facts(dir / "build.json");
    runtime.own_build = true;
    runtime.libpython = facts.value("libpython", "");
    runtime.build_executable = facts.value("executable", "");
    runtime.build_version = facts.value("version", "");
    runtime.build_dynload = facts.value("dynload", "");
    if (runtime.libpython.empty() || !fs::exists(runtime.libpython, ec))
        throw Error(fmt::format("{} has no shared libpython (lib/libpython{}.so.1.0: a static build), and "
                                "this importscope has no Python {} of its own build to run the target on; "
                                "install that interpreter's shared library (Debian and Ubuntu: apt-get install "
                                "libpython{}), or name a Python {} built with --enable-shared",
                                python.described(), runtime.minor, runtime.minor, runtime.minor, runtime.minor),
                    ExitStatus::tool_failure);
    return runtime;
}

} // namespace importscope::supervisor
