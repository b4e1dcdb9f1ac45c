#include "importscope/app/run_stages.hpp"
#include "importscope/app/job_place.hpp"

#include "importscope/util/error.hpp"
#include "importscope/util/host.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace importscope::app {

namespace {

constexpr double k_max_timeout_s = 366.0 * 24 * 3600;

const char* kind_name(embed::TargetKind kind)
{
    switch (kind) {
    case embed::TargetKind::script:
        return "script";
    case embed::TargetKind::module:
        return "module";
    case embed::TargetKind::command:
        return "command";
    case embed::TargetKind::stdin_script:
        return "stdin";
    case embed::TargetKind::program:
        return "program";
    }
    return "script";
}

/// The interpreter the target runs on: --python, else the one the command names, else the default.
/// A program that is not Python needs none of its own: the default is only for the fingerprint.
supervisor::PythonInstallation chosen_as(supervisor::PythonInstallation python, const char* how)
{
    python.chosen_as = how;
    return python;
}

supervisor::PythonInstallation choose_python(const RunOptions& options, const ResolvedTarget& resolved,
                                             const InstallLayout& layout)
{
    if (!options.python.empty())
        return supervisor::locate_python(options.python);
    if (!resolved.interpreter.empty())
        return chosen_as(supervisor::locate_python(resolved.interpreter), "the command's interpreter");
    const std::string installed_for = layout.installed ? layout.binary_dir : std::string{};
    if (resolved.target.kind != embed::TargetKind::program)
        return chosen_as(supervisor::locate_python(supervisor::default_python(installed_for)),
                         "the default interpreter");
    try {
        return chosen_as(supervisor::locate_python(supervisor::default_python(installed_for)),
                         "the default interpreter");
    } catch (const Error&) {
        return {}; // its Python descendants each say which interpreter they run
    }
}

/// The files the run reads, which its report must never replace: the script (a directory's or
/// zip's `__main__.py` too), the module `-m` names where python finds it first (the working
/// directory), standard input for `-`, the program and the interpreters named.
std::vector<std::filesystem::path> files_to_run(const RunOptions& options, const ResolvedTarget& resolved)
{
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    const embed::Target& target = resolved.target;
    switch (target.kind) {
    case embed::TargetKind::script:
    case embed::TargetKind::program:
        files.emplace_back(target.value);
        files.push_back(fs::path(target.value) / "__main__.py");
        break;
    case embed::TargetKind::module: {
        std::string relative = target.value;
        std::replace(relative.begin(), relative.end(), '.', '/');
        for (const char* suffix : {".py", "/__init__.py", "/__main__.py"})
            files.emplace_back(relative + suffix);
        break;
    }
    case embed::TargetKind::stdin_script:
        files.emplace_back("/dev/stdin");
        break;
    case embed::TargetKind::command:
        break;
    }
    for (const std::string& interpreter : {options.python, resolved.interpreter})
        if (!interpreter.empty())
            files.emplace_back(interpreter);
    return files;
}

/// A --match PATTERN with a control character (a newline from $'torch\n', a tab) matches no module
/// name, and a newline would split it in two for the children (journal::join_patterns): refused,
/// never stripped, so that the quoting mistake is seen.
void check_pattern(const std::string& pattern)
{
    const auto control = std::find_if(pattern.begin(), pattern.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte < 0x20 || byte == 0x7f;
    });
    if (control != pattern.end())
        throw Error(fmt::format("--match {:?} has a control character (byte 0x{:02x} at {}), which no module name "
                                "has; check the quoting",
                                pattern, static_cast<unsigned char>(*control), control - pattern.begin()));
}

/// The checks of the options alone, before the target or the interpreter is looked for.
void check_options(const RunOptions& options)
{
    if (options.timeout_given && !(options.timeout_s > 0))
        throw Error(fmt::format("--timeout {} is not a positive number of seconds", options.timeout_s));
    if (options.timeout_given && !(options.timeout_s <= k_max_timeout_s)) // also NaN and inf
        throw Error(fmt::format("--timeout {} is more than importscope can wait ({} s, about a year)", options.timeout_s,
                                k_max_timeout_s));
    if (options.match.empty())
        throw Error("--match needs at least one PATTERN");
    for (const std::string& pattern : options.match)
        check_pattern(pattern);
}

/// The bootstrap directory goes first on the children's PYTHONPATH: refused before anything runs
/// when that makes the variable longer than execve takes, which would fail every exec of the
/// target's (E2BIG) under importscope only.
void check_children_python_path(const std::string& bootstrap_dir)
{
    if (bootstrap_dir.empty())
        return;
    const std::string path = embed::children_python_path(bootstrap_dir);
    const std::size_t length = std::string_view("PYTHONPATH=").size() + path.size() + 1;
    if (length > embed::k_max_env_string)
        throw Error(fmt::format("PYTHONPATH is {} bytes; with importscope's directory {} before it, it would be {} "
                                "bytes, more than one environment variable may be ({} with its name), and every "
                                "program the target started would fail (E2BIG); shorten PYTHONPATH by {} bytes, "
                                "or run with --no-follow",
                                path.size() - bootstrap_dir.size() - 1, bootstrap_dir, length,
                                embed::k_max_env_string, length - embed::k_max_env_string));
}

} // namespace

RunRequest make_request(const RunOptions& options)
{
    RunRequest request;
    request.options = options;
    request.job = job_of_environment();
    request.options.output = expand_output_placeholders(options.output, request.job, host_name(), ::getpid());
    request.resolved = resolve_target(
        {options.script, options.module, options.command, options.program, options.target_args});
    check_options(options);
    if (options.no_follow && request.is_program())
        throw Error(fmt::format("{} is not Python: with --no-follow nothing of it would be traced",
                                request.resolved.target.value));
    check_writable_destination(request.options.output, files_to_run(options, request.resolved), Replaces::report_only);
    request.output_before = snapshot_of_destination(request.options.output);
    request.gate = report::FailOn::parse(options.fail_on);
    request.summary_format = report::parse_format(options.format);
    request.layout = find_install_layout();
    request.python = choose_python(options, request.resolved, request.layout);
    if (request.resolved.target.kind != embed::TargetKind::program)
        request.runtime = supervisor::choose_runtime(request.python, request.layout.runtime_dir);
    request.bootstrap_dir = options.no_follow ? std::string{} : bootstrap_dir(request.layout);
    check_children_python_path(request.bootstrap_dir);
    if (options.redact_paths)
        request.redaction.emplace(home_directory(), user_name());
    return request;
}

report::RunInfo make_run_info(const RunRequest& request)
{
    const RunOptions& options = request.options;
    report::RunInfo info;
    info.argv = options.argv;
    info.cwd = current_directory();
    info.host = host_name();
    info.job = request.job;
    const embed::Target& target = request.resolved.target;
    info.target_kind = kind_name(target.kind);
    info.target = target.value;
    info.target_args = target.args;
    info.interpreter_options = target.interpreter_options;
    info.python_executable = request.python.executable;
    info.worker_minor = request.runtime.minor;
    info.python_libpython = request.runtime.libpython;
    info.python_static_build = request.runtime.own_build;
    info.python_runtime_version = request.runtime.build_version;
    info.match = options.match;
    info.follow = !options.no_follow;
    if (options.timeout_given)
        info.timeout_s = options.timeout_s;
    return info;
}

embed::WorkerPlan make_worker_plan(const RunRequest& request, const supervisor::RunDir& run_dir,
                                   const journal::ProblemInbox& inbox, const journal::SharedJournal* shared)
{
    embed::WorkerPlan plan;
    plan.python_executable = request.python.executable;
    std::error_code ec;
    plan.foreign_installation =
        request.runtime.own_build &&
        request.python.realpath != std::filesystem::canonical(request.runtime.build_executable, ec).string();
    if (plan.foreign_installation)
        plan.fallback_dynload = request.runtime.build_dynload;
    plan.target = request.resolved.target;
    plan.match = request.options.match;
    plan.run_dir = run_dir.path().string();
    plan.problem_address = inbox.address();
    plan.follow = !request.options.no_follow;
    plan.bootstrap_dir = request.bootstrap_dir;
    plan.stdin_closed = request.options.stdin_closed;
    if (shared)
        plan.shared_journal = shared->writer();
    return plan;
}

} // namespace importscope::app
