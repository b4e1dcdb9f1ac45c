#include "importscope/analysis/untraced.hpp"
#include "importscope/util/python_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>

namespace importscope::analysis {

namespace {

/// Python's own short options before its target, joined ("-IS" holds I and S).
std::string interpreter_flags(const std::vector<std::string>& argv)
{
    std::string flags;
    for (std::size_t i = 1; i < argv.size(); ++i) {
        const std::string& word = argv[i];
        if (word.size() < 2 || word[0] != '-' || word == "--")
            break;
        if (word.starts_with("--")) {
            flags += word == "--version" || word == "--help" ? "V" : "";
            continue;
        }
        for (std::size_t j = 1; j < word.size(); ++j) {
            if (word[j] == 'c' || word[j] == 'm')
                return flags;
            if (word[j] == 'W' || word[j] == 'X') {
                i += j + 1 == word.size() ? 1 : 0; // its value is the next word
                break;
            }
            flags += word[j];
        }
    }
    return flags;
}

/// A Ray worker, by its command line (default_worker.py) or the title it gives itself ("ray::IDLE").
bool is_ray_worker(const std::vector<std::string>& argv)
{
    constexpr std::string_view k_worker = "/ray/_private/workers/default_worker.py";
    if (!argv.empty() && argv.front().starts_with("ray::"))
        return true;
    return std::any_of(argv.begin(), argv.end(), [&](const std::string& word) { return word.ends_with(k_worker); });
}

/// Why a Python program was not traced, and what to do.
std::pair<std::string, std::string> explain(const journal::ProgramStart& program, std::optional<int> minor,
                                            const std::vector<int>& traced_minors)
{
    const std::string flags = interpreter_flags(program.argv);
    if (flags.find('I') != std::string::npos)
        return {"isolated mode (-I): it ignores PYTHONPATH, which carries importscope's bootstrap",
                "drop -I from that command while you diagnose, or run it on its own under importscope"};
    if (flags.find('E') != std::string::npos)
        return {"-E: it ignores PYTHONPATH, which carries importscope's bootstrap",
                "drop -E from that command while you diagnose, or run it on its own under importscope"};
    if (flags.find('S') != std::string::npos)
        return {"-S: it does not import site, which loads importscope's bootstrap",
                "drop -S from that command while you diagnose, or run it on its own under importscope"};
    if (program.env == "no-bootstrap-path" && is_ray_worker(program.argv))
        return {"a Ray worker whose runtime_env sets PYTHONPATH (env_vars): Ray gives the worker that PYTHONPATH in "
                "place of the one that carried importscope's bootstrap",
                "keep the inherited PYTHONPATH behind your own: runtime_env={\"env_vars\": {\"PYTHONPATH\": "
                "os.pathsep.join([YOUR_PATH, os.environ[\"PYTHONPATH\"]])}}, or ship the code with runtime_env "
                "working_dir or py_modules, which add to PYTHONPATH"};
    if (program.env == "no-bootstrap-path")
        return {"its environment is a copy of its parent's from which PYTHONPATH, which carries importscope's "
                "bootstrap, was removed or replaced (venv does so on purpose when it runs ensurepip)",
                "a set-up step such as ensurepip needs no tracing; for a child that does, keep the bootstrap "
                "directory of its parent's PYTHONPATH in the PYTHONPATH it is given"};
    if (program.env == "dropped")
        return {"it was given an environment without IMPORTSCOPE_RUN_DIR or without importscope's bootstrap on "
                "PYTHONPATH (env= built from scratch)",
                "build the child's env from os.environ (dict(os.environ, ...)) so that it keeps both"};
    if (minor && *minor >= 0 &&
        std::find(traced_minors.begin(), traced_minors.end(), *minor) == traced_minors.end())
        return {fmt::format("it is Python 3.{}, and this importscope has no hooks for that version", *minor),
                fmt::format("install importscope for Python 3.{} too (build with IMPORTSCOPE_PYTHONS naming it)",
                            *minor)};
    return {"it wrote no journal: it may have ended before site ran, or could not write into the run directory",
            "see the report's problems, and run that command on its own under importscope"};
}

bool is_python_program(const journal::ProgramStart& program, const ProcessRecord& starter, std::optional<int>& minor)
{
    if (program.via == "os.system" || program.argv.empty())
        return false;
    minor = python_name_minor(file_name_of(program.executable));
    if (!minor)
        minor = python_name_minor(file_name_of(program.argv.front()));
    if (!minor && program.executable == starter.executable && !starter.executable.empty())
        minor = -1;
    // `python --version` or `-h` runs no Python code: nothing to trace.
    return minor && interpreter_flags(program.argv).find_first_of("Vh") == std::string::npos;
}

/// Whether the program `seen` shows is one that a traced process journaled: a record of that pid has
/// its command line, or the last of them (one that retitled itself since, say) exec'd nothing. A
/// traced Python that exec'd a program which ran Python without the bootstrap (Ray's setup_worker.py,
/// through `bash -c "exec python ..."`, under a runtime_env that sets PYTHONPATH) is not.
bool is_traced(const RunModel& model, const ObservedPython& seen)
{
    const ProcessRecord* last = nullptr;
    for (const ProcessRecord& p : model.processes) {
        if (p.pid != seen.pid)
            continue;
        if (p.argv == seen.argv)
            return true;
        if (!last || p.start_wall_ns >= last->start_wall_ns)
            last = &p;
    }
    return last && std::none_of(last->programs.begin(), last->programs.end(),
                                [](const journal::ProgramStart& program) { return program.via == "os.exec"; });
}

/// The running Python processes that no traced process is, and no untraced start named already.
void add_observed(const RunModel& model, const std::vector<int>& traced_minors, const std::vector<ObservedPython>& observed,
                  std::vector<UntracedProcess>& untraced)
{
    const std::size_t starts = untraced.size(); // the entries of program starts, before any seen
    std::set<std::size_t> claimed;
    for (const ObservedPython& seen : observed) {
        // `python --version` or `-h` runs no Python code: nothing to trace.
        if (seen.argv.empty() || is_traced(model, seen) ||
            interpreter_flags(seen.argv).find_first_of("Vh") != std::string::npos)
            continue;
        // The start of this very process, if a traced process named it: one entry for one process,
        // and each of six identical workers its own.
        const auto named = std::find_if(untraced.begin(), untraced.begin() + static_cast<std::ptrdiff_t>(starts),
                                        [&](const UntracedProcess& u) {
                                            return u.argv == seen.argv &&
                                                   (u.parent_pid == seen.ppid ||
                                                    (u.via == "os.exec" && u.parent_pid == seen.pid));
                                        });
        if (named != untraced.begin() + static_cast<std::ptrdiff_t>(starts) &&
            claimed.insert(static_cast<std::size_t>(named - untraced.begin())).second)
            continue;
        journal::ProgramStart program;
        program.via = "seen running";
        program.executable = seen.executable;
        program.argv = seen.argv;
        program.env = seen.environment;
        const std::optional<int> minor = seen.minor ? seen.minor : python_name_minor(file_name_of(seen.executable));
        auto [reason, advice] = explain(program, minor, traced_minors);
        untraced.push_back({seen.ppid, program.via, seen.executable, seen.argv, std::move(reason), std::move(advice)});
    }
}

} // namespace

std::vector<UntracedProcess> find_untraced(const RunModel& model, const std::vector<int>& traced_minors,
                                           const std::vector<ObservedPython>& observed)
{
    std::vector<UntracedProcess> untraced;
    std::set<std::size_t> matched; // indexes of traced processes already paired with a start
    for (const ProcessRecord& starter : model.processes)
        for (const journal::ProgramStart& program : starter.programs) {
            std::optional<int> minor;
            if (!is_python_program(program, starter, minor))
                continue;
            const bool exec = program.via == "os.exec";
            bool found = false;
            for (std::size_t i = 0; i < model.processes.size() && !found; ++i) {
                const ProcessRecord& p = model.processes[i];
                const bool related = exec ? p.pid == starter.pid && &p != &starter : p.ppid == starter.pid;
                if (related && p.argv == program.argv && !matched.count(i)) {
                    matched.insert(i);
                    found = true;
                }
            }
            if (found)
                continue;
            // A child that said which Python it is (it had no hooks of its version) knows best.
            for (const ObservedPython& seen : observed)
                if (seen.minor && seen.ppid == starter.pid && seen.argv == program.argv)
                    minor = seen.minor;
            auto [reason, advice] = explain(program, minor, traced_minors);
            untraced.push_back(
                {starter.pid, program.via, program.executable, program.argv, std::move(reason), std::move(advice)});
        }
    add_observed(model, traced_minors, observed, untraced);
    return untraced;
}

} // namespace importscope::analysis
