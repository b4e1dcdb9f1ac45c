#include "importscope/app/target_resolution.hpp"

#include "importscope/supervisor/python_locator.hpp"
#include "importscope/util/error.hpp"
#include "importscope/util/python_name.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope::app {

namespace fs = std::filesystem;
using embed::Target;
using embed::TargetKind;

namespace {

std::vector<std::string> split_words(const std::string& text)
{
    std::istringstream in(text);
    std::vector<std::string> words;
    for (std::string word; in >> word;)
        words.push_back(word);
    return words;
}

bool is_elf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::array<char, 4> magic{};
    return in.read(magic.data(), magic.size()) && magic == std::array<char, 4>{'\x7f', 'E', 'L', 'F'};
}

/// A file that python runs: a source or bytecode file, a directory or zip with __main__.py.
bool looks_like_python_source(const std::string& path)
{
    const std::string extension = fs::path(path).extension().string();
    return extension == ".py" || extension == ".pyc" || extension == ".pyw" || extension == ".pyz";
}

/// Where a shell would find `name`: itself when it has a slash, else the first match on PATH.
std::string find_command(const std::string& name)
{
    if (name.find('/') != std::string::npos) {
        if (!fs::exists(name))
            throw Error(fmt::format("cannot run {}: no such file", name), ExitStatus::not_found);
        return name;
    }
    std::string found = supervisor::find_on_path(name);
    if (found.empty() && looks_like_python_source(name))
        throw Error(fmt::format("cannot run {}: no such file", name), ExitStatus::not_found);
    if (found.empty())
        throw Error(fmt::format("{}: command not found on PATH (for a Python file in this directory, write ./{})",
                                name, name),
                    ExitStatus::not_found);
    return found;
}

Target script_target(const std::string& path, const std::vector<std::string>& args)
{
    Target target;
    target.kind = TargetKind::script;
    target.value = path;
    target.args = args;
    return target;
}

/// A file that is not Python, or whose shebang names another interpreter: run as a shell would.
ResolvedTarget program(const std::string& path, const std::string& argv0, const std::vector<std::string>& args)
{
    if (fs::is_directory(path))
        throw Error(fmt::format("cannot run {}: it is a directory", path), ExitStatus::cannot_execute);
    if (::access(path.c_str(), X_OK) != 0)
        throw Error(fmt::format("cannot run {}: it is not executable (chmod +x, or name its interpreter)", path),
                    ExitStatus::cannot_execute);
    ResolvedTarget resolved;
    resolved.target.kind = TargetKind::program;
    resolved.target.value = fs::absolute(path).lexically_normal().string();
    resolved.target.program_argv0 = argv0;
    resolved.target.args = args;
    resolved.recognised_as = "program";
    return resolved;
}

/// A command found on PATH or given with its path (after `--`, or a NAME that is not a file here).
ResolvedTarget resolve_command(const std::string& name, const std::vector<std::string>& args)
{
    const std::string path = find_command(name);
    std::error_code ec;
    const std::string real = fs::canonical(path, ec).string();
    if (is_python_name(fs::path(name).filename().string()) || is_python_name(fs::path(real).filename().string())) {
        ResolvedTarget resolved{parse_python_arguments(args), path, "python command line"};
        return resolved;
    }
    if (const auto shebang = read_shebang(path)) {
        if (is_python_name(fs::path(shebang->interpreter).filename().string())) {
            ResolvedTarget resolved{script_target(path, args), shebang->interpreter, "python script (shebang)"};
            resolved.target.interpreter_options = shebang->options;
            return resolved;
        }
        return program(path, name, args);
    }
    if (!is_elf(path) && looks_like_python_source(path))
        return {script_target(path, args), "", "script"};
    return program(path, name, args);
}

} // namespace

bool is_python_name(const std::string& file_name)
{
    return python_name_minor(file_name).has_value();
}

Target parse_python_arguments(const std::vector<std::string>& words)
{
    Target target;
    target.kind = TargetKind::stdin_script; // python with no target reads standard input
    auto rest = [&](std::size_t from) {
        return std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(std::min(from, words.size())),
                                        words.end());
    };
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word == "-") {
            target.args = rest(i + 1);
            return target;
        }
        if (word == "--" || word.size() < 2 || word[0] != '-') {
            const std::size_t at = word == "--" ? i + 1 : i;
            if (at < words.size()) {
                std::vector<std::string> options = std::move(target.interpreter_options);
                target = script_target(words[at], rest(at + 1));
                target.interpreter_options = std::move(options);
            }
            return target;
        }
        if (word.starts_with("--")) {
            target.interpreter_options.push_back(word);
            if (word == "--check-hash-based-pycs" && i + 1 < words.size())
                target.interpreter_options.push_back(words[++i]);
            continue;
        }
        // Short options, possibly joined (-uc CODE); -c and -m end python's options, -W and -X
        // take the rest of the word or the next one.
        bool value_in_next_word = false;
        for (std::size_t j = 1; j < word.size(); ++j) {
            const char option = word[j];
            if (option != 'c' && option != 'm' && option != 'W' && option != 'X')
                continue;
            const bool value_joined = j + 1 < word.size();
            if (option == 'W' || option == 'X') {
                value_in_next_word = !value_joined;
                break;
            }
            if (j > 1)
                target.interpreter_options.push_back(word.substr(0, j));
            target.kind = option == 'c' ? TargetKind::command : TargetKind::module;
            std::size_t next = i + 1;
            if (value_joined)
                target.value = word.substr(j + 1);
            else if (i + 1 < words.size())
                target.value = words[next++];
            target.args = rest(next);
            return target;
        }
        target.interpreter_options.push_back(word);
        if (value_in_next_word && i + 1 < words.size())
            target.interpreter_options.push_back(words[++i]);
    }
    return target;
}

std::optional<Shebang> read_shebang(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string line(256, '\0');
    in.read(line.data(), static_cast<std::streamsize>(line.size()));
    line.resize(static_cast<std::size_t>(in.gcount()));
    if (!line.starts_with("#!"))
        return std::nullopt;
    line = line.substr(2, line.find('\n') - 2);
    std::vector<std::string> words = split_words(line);
    if (words.empty())
        return std::nullopt;
    Shebang shebang{words[0], {}};
    // The kernel passes everything after the interpreter as one argument.
    if (const auto after = line.find(words[0]) + words[0].size(); words.size() > 1)
        shebang.options = {line.substr(line.find_first_not_of(" \t", after))};
    if (fs::path(shebang.interpreter).filename() == "env" && words.size() > 1) {
        std::size_t at = 1;
        while (at < words.size() && words[at].starts_with("-"))
            ++at; // env's own options (-S splits the rest into words)
        if (at == words.size())
            return shebang;
        const std::string found = supervisor::find_on_path(words[at]);
        shebang.interpreter = found.empty() ? words[at] : found;
        shebang.options.assign(words.begin() + static_cast<std::ptrdiff_t>(at) + 1, words.end());
    }
    return shebang;
}

ResolvedTarget resolve_target(const TargetRequest& request)
{
    const int given = !request.script.empty() + !request.module.empty() + !request.code.empty() +
                      request.command.has_value();
    if (given == 0)
        throw Error("nothing to run: give a SCRIPT, -m MODULE, -c CODE or -- COMMAND (see importscope run --help)");
    if (given > 1)
        throw Error("give only one of SCRIPT, -m MODULE, -c CODE and -- COMMAND");
    if (request.command)
        return resolve_command(*request.command, request.args);
    ResolvedTarget resolved;
    resolved.target.args = request.args;
    if (!request.module.empty()) {
        resolved.target.kind = TargetKind::module;
        resolved.target.value = request.module;
        resolved.recognised_as = "module";
        return resolved;
    }
    if (!request.code.empty()) {
        resolved.target.kind = TargetKind::command;
        resolved.target.value = request.code;
        resolved.recognised_as = "command";
        return resolved;
    }
    if (request.script == "-") {
        resolved.target.kind = TargetKind::stdin_script;
        resolved.recognised_as = "stdin";
        return resolved;
    }
    const std::string& script = request.script;
    struct stat st {};
    if (::stat(script.c_str(), &st) != 0) {
        if (script.find('/') == std::string::npos)
            return resolve_command(script, request.args); // a command NAME, as a shell would take it
        throw Error(fmt::format("cannot run {}: no such file", script), ExitStatus::not_found);
    }
    if (S_ISDIR(st.st_mode) && ::access((script + "/__main__.py").c_str(), R_OK) != 0)
        throw Error(fmt::format("cannot run {}: it is a directory without a __main__.py", script));
    if (::access(script.c_str(), R_OK) != 0)
        throw Error(fmt::format("cannot run {}: not readable", script), ExitStatus::cannot_execute);
    if (S_ISREG(st.st_mode)) {
        // A file that is not Python is never run as Python: a binary, or a script for another interpreter.
        const auto shebang = read_shebang(script);
        const bool other_interpreter = shebang && !is_python_name(fs::path(shebang->interpreter).filename().string());
        if (is_elf(script) || other_interpreter)
            return program(script, script.find('/') == std::string::npos ? "./" + script : script, request.args);
    }
    resolved.target.kind = TargetKind::script;
    resolved.target.value = script;
    resolved.recognised_as = "script";
    return resolved;
}

} // namespace importscope::app
