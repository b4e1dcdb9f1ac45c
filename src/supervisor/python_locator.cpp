#include "importscope/supervisor/python_locator.hpp"

#include "importscope/util/error.hpp"
#include "importscope/util/regular_file.hpp"
#include "importscope/util/run_program.hpp"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <charconv>
#include <string_view>
#include <unistd.h>

namespace importscope::supervisor {

namespace fs = std::filesystem;

namespace {

/// The number at the front of `text`, which it then leaves; nullopt without a digit there.
std::optional<int> take_number(std::string_view& text)
{
    if (text.empty() || text.front() < '0' || text.front() > '9')
        return std::nullopt;
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end == text.data())
        return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    return value;
}

/// "<major>.<minor>" at the front of `text`, which it then leaves. (Parsed by hand: std::regex
/// would cost every run milliseconds to compile its character classes.)
std::optional<std::pair<int, int>> take_version(std::string_view& text)
{
    const std::optional<int> major = take_number(text);
    if (!major || !text.starts_with('.'))
        return std::nullopt;
    text.remove_prefix(1);
    const std::optional<int> minor = take_number(text);
    if (!minor)
        return std::nullopt;
    return std::pair{*major, *minor};
}

} // namespace

std::optional<std::pair<int, int>> parse_version(const std::string& text)
{
    // After any blanks; what follows the version is not looked at.
    std::string_view rest = text;
    rest.remove_prefix(std::min(rest.find_first_not_of(" \t\n\r\f\v"), rest.size()));
    return take_version(rest);
}

namespace {

bool is_executable_file(const std::string& path)
{
    return is_regular_file(path) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

std::string find_on_path(const std::string& name)
{
    const char* path = std::getenv("PATH");
    std::string entries = path ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= entries.size()) {
        const std::size_t colon = std::min(entries.find(':', start), entries.size());
        std::string dir = entries.substr(start, colon - start);
        if (dir.empty())
            dir = ".";
        dir += '/';
        dir += name;
        if (is_executable_file(dir))
            return dir;
        start = colon + 1;
    }
    return {};
}

namespace {

bool is_elf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::array<char, 4> magic{};
    return in.read(magic.data(), magic.size()) && magic == std::array<char, 4>{'\x7f', 'E', 'L', 'F'};
}

/// The ABI flags that name a build of its own: "t", free-threaded (python3.13t).
bool is_abiflags(std::string_view text)
{
    return text.empty() || text == "t";
}

/// Version from the file name of the real binary ("python3.11", "python3.13t"), or from a venv's
/// pyvenv.cfg.
std::optional<std::pair<int, int>> version_from_files(const std::string& executable, const std::string& real,
                                                      std::string& abiflags)
{
    const std::string base = fs::path(real).filename().string();
    if (std::string_view name = base; name.starts_with("python")) { // exactly python<major>.<minor>[t]
        name.remove_prefix(6);
        if (const auto version = take_version(name); version && is_abiflags(name)) {
            abiflags = std::string(name);
            return version;
        }
    }
    const fs::path bin = fs::path(executable).parent_path();
    for (const fs::path& cfg : {bin.parent_path() / "pyvenv.cfg", bin / "pyvenv.cfg"}) {
        std::ifstream in(cfg);
        for (std::string line; std::getline(in, line);) {
            const auto eq = line.find('=');
            if (eq == std::string::npos)
                continue;
            std::string key = line.substr(0, eq);
            key.erase(key.find_last_not_of(" \t") + 1);
            if (key == "version" || key == "version_info")
                return parse_version(line.substr(eq + 1));
        }
    }
    return std::nullopt;
}

/// Runs the interpreter once to ask what it is: its sys.executable and version (with its ABI
/// flags after a space).
std::pair<std::string, std::string> ask_interpreter(const std::string& path)
{
    const auto output = run_and_capture(
        {path, "-I", "-S", "-c",
         "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3], getattr(sys, 'abiflags', ''))"},
        30.0);
    const auto newline = output ? output->find('\n') : std::string::npos;
    if (newline == std::string::npos)
        throw Error(fmt::format("--python {} is not a working Python interpreter (it could not run "
                                "\"import sys\"); name a python executable, e.g. --python /usr/bin/python3",
                                path));
    std::string version = output->substr(newline + 1);
    version.erase(version.find_last_not_of("\r\n") + 1);
    return {output->substr(0, newline), version};
}

} // namespace

std::string default_python(const std::string& installed_beside)
{
    // Installed with pip: the environment's own interpreter, beside the binary. A pipx environment
    // holds importscope alone, so its interpreter is no one's target.
    std::error_code ec;
    if (!installed_beside.empty() && !fs::exists(fs::path(installed_beside).parent_path() / "pipx_metadata.json", ec))
        for (const char* name : {"python3", "python"})
            if (std::string candidate = installed_beside + "/" + name; is_executable_file(candidate))
                return candidate;
    if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv) {
        std::string candidate = std::string(venv) + "/bin/python";
        if (is_executable_file(candidate))
            return candidate;
    }
    std::string found = find_on_path("python3");
    if (found.empty())
        throw Error("no python3 on PATH; name the interpreter to use with --python PATH");
    return found;
}

PythonInstallation locate_python(const std::string& path)
{
    std::string executable = path.find('/') == std::string::npos ? find_on_path(path) : path;
    if (executable.empty() || !is_executable_file(executable))
        throw Error(fmt::format("--python {}: no such executable file", path));
    executable = fs::absolute(executable).lexically_normal().string();

    PythonInstallation found;
    std::optional<std::pair<int, int>> version;
    std::error_code ec;
    std::string real = fs::canonical(executable, ec).string();
    if (is_elf(real))
        version = version_from_files(executable, real, found.abiflags);
    if (!version) {
        // A wrapper script (a pyenv shim) or an unusual name: ask it.
        auto [asked_executable, asked_version] = ask_interpreter(executable);
        if (!asked_executable.empty())
            executable = asked_executable;
        real = fs::canonical(executable, ec).string();
        version = parse_version(asked_version);
        if (const auto blank = asked_version.find(' '); blank != std::string::npos)
            found.abiflags = asked_version.substr(blank + 1);
        if (!version)
            throw Error(fmt::format("--python {} reported an unreadable version \"{}\"", path, asked_version));
    }
    found.executable = executable;
    found.realpath = real.empty() ? executable : real;
    std::tie(found.major, found.minor) = *version;
    return found;
}

} // namespace importscope::supervisor
