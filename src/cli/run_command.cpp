#include "cli/run_command.hpp"

#include "cli/install_layout.hpp"
#include "cli/live_view.hpp"
#include "cli/target_resolution.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/known_issues.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/analysis/untraced.hpp"
#include "importscope/embed/worker.hpp"
#include "importscope/journal/problem_channel.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/journal/shared_journal.hpp"
#include "importscope/report/gate.hpp"
#include "importscope/report/outcome.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/report/render.hpp"
#include "importscope/report/report.hpp"
#include "importscope/report/summary.hpp"
#include "importscope/supervisor/environment.hpp"
#include "importscope/supervisor/python_locator.hpp"
#include "importscope/supervisor/python_runtime.hpp"
#include "importscope/supervisor/run_dir.hpp"
#include "importscope/supervisor/supervisor.hpp"
#include "importscope/supervisor/worker_launch.hpp"
#include "importscope/util/atomic_file.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"
#include "importscope/util/keep_until_exit.hpp"
#include "importscope/util/sha256.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <csignal>
#include <cstdlib>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope::cli {

CLI::App* setup_run(CLI::App& app, RunOptions& options)
{
    CLI::App* run = app.add_subcommand(
        "run", "Run a Python target, or any command, under the import hooks and write a report:\n"
               "  importscope run [OPTIONS] (SCRIPT | -m MODULE | -c CODE | - | NAME | -- COMMAND) [ARGS...]");
    run->add_option("--match", options.match,
                    "Record modules whose dotted name contains PATTERN (repeatable; '*' records every module). "
                    "Every extension load is recorded whatever the pattern")
        ->type_name("PATTERN")
        ->default_str("deep_gemm")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    run->add_option("-o,--output", options.output, "Where to write the JSON report")
        ->type_name("FILE")
        ->capture_default_str();
    run->add_option("--python", options.python,
                    "The interpreter whose installation or venv the target runs in "
                    "(default: $VIRTUAL_ENV/bin/python, else python3 on PATH)")
        ->type_name("PATH");
    run->add_option("--timeout", options.timeout_s,
                    "End the whole process tree after SECONDS: SIGINT (Python prints where it was), then SIGKILL")
        ->type_name("SECONDS");
    run->add_flag("--no-follow", options.no_follow,
                  "Trace only the main process, not its Python children (multiprocessing, subprocess, fork)");
    run->add_flag("--stop-on-finding", options.stop_on_finding,
                  "End the process tree as soon as the first error finding is recorded, and write the report");
    run->add_flag("-q,--quiet", options.quiet,
                  "Print nothing but findings and errors (no status line, no summary of a clean run)");
    run->add_flag("--ignore-target-status", options.ignore_target_status,
                  "Exit 0 when there is no finding even if the target failed (for targets expected to fail)");
    run->add_flag("--redact-paths", options.redact_paths,
                  "Write the home directory as ~ and the user name as <user> everywhere in the report");
    run->add_option("--fail-on", options.fail_on,
                    "Which findings make the exit status 1: error, warning, none, or a comma list of kinds")
        ->capture_default_str();
    run->add_option("--format", options.format, "The summary on stderr: text, markdown, junit or dot")
        ->capture_default_str();
    run->add_option("--env-prefix", options.env_prefixes,
                    "Also record environment variables whose names start with PREFIX (repeatable; secrets are "
                    "redacted)")
        ->type_name("PREFIX")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    run->add_option("-m", options.module, "Run library module MODULE as a script, like python -m")->type_name("MODULE");
    run->add_option("-c", options.command, "Run CODE, like python -c")->type_name("CODE");
    run->add_option("SCRIPT", options.script,
                    "The Python file (or directory with __main__.py) to run, - for standard input, or the NAME of a "
                    "command on PATH");
    run->footer(
        "Everything after SCRIPT, -m MODULE, -c CODE or -- COMMAND is passed to the target untouched.\n"
        "-- COMMAND runs any program as a shell would: a Python interpreter's command line or a script whose #! "
        "names Python runs embedded; anything else (bash, srun, a binary) runs as it is, and every Python process "
        "it starts is traced.\n"
        "Exit status: 0 the target succeeded and no finding that --fail-on selects; 3 such a finding; the "
        "target's own status when it failed (128+N for signal N); 124 --timeout ended it; 125 importscope "
        "itself failed (usage, set-up, hooks, journals, report); 126 COMMAND cannot be run; 127 not found.");
    return run;
}

namespace {

constexpr double k_max_timeout_s = 366.0 * 24 * 3600;

/// The request, validated once before anything runs: what the worker and the report need.
struct RunRequest {
    ResolvedTarget resolved;
    supervisor::PythonInstallation python;
    supervisor::PythonRuntime runtime; ///< for a Python target: the worker and libpython it runs on
    InstallLayout layout;
    report::FailOn gate;
    report::Format summary_format = report::Format::text;
    std::string bootstrap_dir;
    std::optional<report::PathRedaction> redaction;
};

/// What the launch stage gives the collect stage.
struct Launched {
    supervisor::ProcessEnd end;
    std::int64_t started_ns = 0;
    std::int64_t ended_ns = 0;
    std::vector<std::string> inbox; ///< problems the traced processes sent
};

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

std::string current_directory()
{
    char cwd[PATH_MAX];
    return ::getcwd(cwd, sizeof cwd) ? cwd : "";
}

std::string host_name()
{
    char name[256] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? name : "";
}

report::ExitInfo to_exit_info(const supervisor::WaitStatus& status, const std::string& how)
{
    report::ExitInfo exit;
    exit.code = status.code;
    exit.signal = status.signal;
    exit.core_dumped = status.core_dumped;
    exit.how = how;
    return exit;
}

std::string home_directory()
{
    if (const char* home = std::getenv("HOME"); home && *home)
        return home;
    const passwd* entry = ::getpwuid(::getuid());
    return entry && entry->pw_dir ? entry->pw_dir : "";
}

std::string user_name()
{
    const passwd* entry = ::getpwuid(::getuid());
    return entry && entry->pw_name ? entry->pw_name : "";
}

bool stderr_wants_color()
{
    const char* no_color = std::getenv("NO_COLOR");
    return ::isatty(STDERR_FILENO) && !(no_color && *no_color);
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

RunRequest make_request(const RunOptions& options)
{
    RunRequest request;
    request.resolved = resolve_target(
        {options.script, options.module, options.command, options.program, options.target_args});
    if (options.timeout_given && !(options.timeout_s > 0))
        throw Error(fmt::format("--timeout {} is not a positive number of seconds", options.timeout_s));
    if (options.timeout_given && !(options.timeout_s <= k_max_timeout_s)) // also NaN and inf
        throw Error(fmt::format("--timeout {} is more than importscope can wait ({} s, about a year)", options.timeout_s,
                                k_max_timeout_s));
    if (options.match.empty())
        throw Error("--match needs at least one PATTERN");
    if (options.no_follow && request.resolved.target.kind == embed::TargetKind::program)
        throw Error(fmt::format("{} is not Python: with --no-follow nothing of it would be traced",
                                request.resolved.target.value));
    std::vector<std::filesystem::path> inputs;
    if (request.resolved.target.kind == embed::TargetKind::script ||
        request.resolved.target.kind == embed::TargetKind::program)
        inputs.emplace_back(request.resolved.target.value);
    check_writable_destination(options.output, inputs);
    request.gate = report::FailOn::parse(options.fail_on);
    request.summary_format = report::parse_format(options.format);
    request.layout = find_install_layout();
    request.python = choose_python(options, request.resolved, request.layout);
    if (request.resolved.target.kind != embed::TargetKind::program)
        request.runtime = supervisor::choose_runtime(request.python, request.layout.runtime_dir);
    request.bootstrap_dir = options.no_follow ? std::string{} : bootstrap_dir(request.layout);
    if (options.redact_paths)
        request.redaction.emplace(home_directory(), user_name());
    return request;
}

report::RunInfo make_run_info(const RunOptions& options, const RunRequest& request)
{
    report::RunInfo info;
    info.argv = options.argv;
    info.cwd = current_directory();
    info.host = host_name();
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

/// The worker's own journal goes to memory shared with it; where that cannot be had, or where the
/// target's address space is limited (the shared memory takes 1 GiB of it, if little of the
/// memory), to a file.
std::unique_ptr<journal::SharedJournal> make_shared_journal()
{
    rlimit address_space{};
    if (::getrlimit(RLIMIT_AS, &address_space) != 0 || address_space.rlim_cur != RLIM_INFINITY)
        return nullptr;
    try {
        return std::make_unique<journal::SharedJournal>();
    } catch (const Error&) {
        return nullptr;
    }
}

/// Launch: the worker under the supervisor, the journals read as they grow.
Launched launch(const RunOptions& options, const RunRequest& request, const supervisor::RunDir& run_dir,
                LiveView& live, journal::SharedJournal* shared, journal::ProblemInbox& inbox, int helper_pid)
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
    plan.match = options.match;
    plan.run_dir = run_dir.path().string();
    plan.problem_address = inbox.address();
    plan.follow = !options.no_follow;
    plan.bootstrap_dir = request.bootstrap_dir;
    if (shared) {
        plan.shared_journal = shared->lines();
        live.follow(shared);
    }
    supervisor::SuperviseOptions supervise_options;
    if (helper_pid > 0)
        supervise_options.helpers.insert(helper_pid);
    if (options.timeout_given)
        supervise_options.timeout_s = options.timeout_s;
    // The journals are read as they grow, whether or not a status line shows them, and often: what
    // is left to read when the target ends is what it wrote since the last tick.
    supervise_options.tick_s = 0.02;
    Launched launched;
    supervise_options.on_tick = [&] {
        auto messages = inbox.take();
        launched.inbox.insert(launched.inbox.end(), messages.begin(), messages.end());
        return live.update() && options.stop_on_finding;
    };
    launched.started_ns = wall_ns();
    launched.end = supervisor::supervise(
        [&](int start_fd) { supervisor::launch_worker(plan, request.runtime, start_fd); }, supervise_options);
    launched.ended_ns = wall_ns();
    auto messages = inbox.take();
    launched.inbox.insert(launched.inbox.end(), messages.begin(), messages.end());
    return launched;
}

/// The handshake: whether importscope got the target started, and if not, why (empty: it did).
std::string start_failure(const Launched& launched, const report::ExitInfo& exit, bool program)
{
    const std::string& words = launched.end.start_words;
    if (!words.empty() && (words[0] == embed::start_word::ready || words[0] == embed::start_word::exited))
        return {};
    if (program && words.starts_with(embed::start_word::exec))
        return {}; // executed, or not executable (126, 127), as a shell would say
    if (!words.empty() && words[0] == embed::start_word::failed)
        return words.size() > 1 ? words.substr(1) : "the worker could not start the target";
    if (exit.timed_out || exit.forwarded_signal || exit.stopped_on_finding)
        return {}; // ended by importscope (or its user) before the target started
    return fmt::format("the worker {} before {}", report::describe_exit(exit),
                       program ? "it executed the program" : "the interpreter was ready to run the target");
}

/// Collect: how each process ended, and those that outlived the run, which importscope ended.
void record_ends(report::RunInfo& info, const Launched& launched, const analysis::RunModel& model)
{
    const supervisor::ProcessEnd& end = launched.end;
    info.started_ns = launched.started_ns;
    info.ended_ns = launched.ended_ns;
    info.main_pid = end.pid;
    info.exit = to_exit_info({end.code, end.signal, end.core_dumped}, "");
    info.exit.timed_out = end.timed_out;
    info.exit.stopped_on_finding = end.stopped;
    info.exit.forwarded_signal = end.forwarded_signal;
    for (const auto& [pid, status] : end.reaped)
        info.seen_ends[pid] = to_exit_info(status, "reaped");
    // What outlived the run, even outside its process group or session, importscope ended.
    for (int pid : end.ended_by_importscope) {
        const auto reaped = end.reaped.find(pid);
        info.seen_ends[pid] = to_exit_info(
            reaped != end.reaped.end() ? reaped->second : supervisor::WaitStatus{std::nullopt, SIGKILL, false},
            "killed");
    }
    for (const auto& p : model.processes)
        if (p.pid == end.pid && info.python_version.empty())
            info.python_version = p.python_version;
}

/// What kept importscope from seeing everything: the handshake, the problems the traced processes
/// sent, a journal that filled up, a run directory the target took away.
std::vector<std::string> tool_failures(const Launched& launched, const report::RunInfo& info,
                                       const RunRequest& request, const supervisor::RunDir& run_dir,
                                       const journal::SharedJournal* shared)
{
    std::vector<std::string> failures;
    if (std::string failure =
            start_failure(launched, info.exit, request.resolved.target.kind == embed::TargetKind::program);
        !failure.empty())
        failures.push_back(std::move(failure));
    failures.insert(failures.end(), launched.inbox.begin(), launched.inbox.end());
    if (shared && shared->overflowed())
        failures.emplace_back("the main process's journal filled up; its later events are lost");
    std::error_code ec;
    if (!std::filesystem::is_directory(run_dir.path(), ec))
        failures.push_back(fmt::format("the run directory {} was removed while the target ran; the children's "
                                       "journals are lost",
                                       run_dir.path().string()));
    return failures;
}

/// The Python 3 minors whose children importscope traces: those it has hooks for.
std::vector<int> traced_minors(const InstallLayout& layout)
{
    std::vector<int> minors;
    for (const std::string& minor : supervisor::available_minors(layout.runtime_dir))
        if (const auto version = supervisor::parse_version(minor))
            minors.push_back(version->second);
    return minors;
}

std::vector<analysis::ObservedPython> observed_pythons(const supervisor::ProcessEnd& end)
{
    std::vector<analysis::ObservedPython> observed;
    for (const auto& seen : end.pythons_seen)
        observed.push_back({seen.pid, seen.ppid, seen.executable, seen.argv, seen.run_environment});
    return observed;
}

/// Content hashes of loaded extensions, each file hashed once for the live and the final analysis.
analysis::FileHasher cached_hasher()
{
    auto hashes = std::make_shared<std::map<std::string, std::optional<std::string>>>();
    return [hashes](const std::string& path) {
        auto [it, inserted] = hashes->try_emplace(path);
        if (inserted)
            it->second = sha256_file(path);
        return it->second;
    };
}

/// Analyze: the findings, with content hashes of loaded extensions and known issues.
std::vector<analysis::Finding> find_hazards(analysis::RunModel& model, const std::string& data_dir,
                                            const analysis::FileHasher& hash_file)
{
    analysis::AnalysisOptions analysis_options;
    analysis_options.hash_file = hash_file;
    // The catalogue is read only when there are findings: compiling its patterns costs a run
    // without findings several milliseconds.
    std::optional<analysis::KnownIssueCatalogue> catalogue;
    std::string catalogue_problem;
    analysis_options.known_issues = [&]() -> const analysis::KnownIssueCatalogue* {
        if (data_dir.empty()) {
            catalogue_problem = "known issues not matched: no importscope-data directory beside the binary";
            return nullptr;
        }
        try {
            catalogue = analysis::KnownIssueCatalogue::load(data_dir + "/known-issues.json");
        } catch (const std::invalid_argument& e) {
            catalogue_problem = fmt::format("known issues not matched: {}", e.what());
        }
        return catalogue ? &*catalogue : nullptr;
    };
    std::vector<analysis::Finding> findings = analysis::analyze(model, analysis_options);
    if (!catalogue_problem.empty())
        model.problems.push_back(std::move(catalogue_problem));
    return findings;
}

/// The environment fingerprint, with the packages of the top-level names the run imported.
nlohmann::json describe_environment(nlohmann::json fingerprint_facts, const analysis::RunModel& model,
                                    const RunOptions& options)
{
    std::set<std::string, std::less<>> top_levels;
    std::string_view previous; // a package's modules mostly follow each other
    for (const auto& m : model.modules)
        if (const std::string_view top = std::string_view(m.name).substr(0, m.name.find('.')); top != previous) {
            previous = top;
            if (top_levels.find(top) == top_levels.end())
                top_levels.emplace(top);
        }
    std::vector<std::string> env_prefixes = supervisor::k_default_env_prefixes;
    env_prefixes.insert(env_prefixes.end(), options.env_prefixes.begin(), options.env_prefixes.end());
    return supervisor::collect_environment(std::move(fingerprint_facts), {top_levels.begin(), top_levels.end()},
                                           env_prefixes);
}

/// Report: the file, written atomically; if it cannot be, the journals are kept for a later look.
void write_report_file(const std::string& output, const nlohmann::json& report_json, const analysis::RunModel& model,
                       const report::PathRedaction* redact, supervisor::RunDir& run_dir,
                       const journal::SharedJournal* shared)
{
    try {
        write_file_atomically(output,
                              [&](const TextSink& sink) { report::write_report(report_json, model, redact, sink); });
    } catch (const Error& e) {
        run_dir.keep();
        if (shared && !shared->name().empty()) // into the empty file that holds its name
            try {
                write_file_atomically(run_dir.path() / shared->name(), shared->written(journal::SharedJournal::k_header));
            } catch (const Error&) {
            }
        throw Error(fmt::format("{} (the journals are kept in {})", e.what(), run_dir.path().string()),
                    ExitStatus::tool_failure);
    }
}

std::size_t selected_findings(const nlohmann::json& report_json, const report::FailOn& gate)
{
    const auto& reported = report_json.at("findings");
    return static_cast<std::size_t>(
        std::count_if(reported.begin(), reported.end(), [&](const auto& f) { return gate.fails(f); }));
}

} // namespace

int run_run(const RunOptions& options)
{
    const RunRequest request = make_request(options); // everything wrong with it is found before anything runs
    report::RunInfo info = make_run_info(options, request);
    const report::PathRedaction* redact = request.redaction ? &*request.redaction : nullptr;
    supervisor::RunDir run_dir;
    journal::ProblemInbox inbox;
    const analysis::FileHasher hash_file = cached_hasher();
    analysis::AnalysisOptions live_analysis;
    live_analysis.hash_file = hash_file;
    auto live = std::make_unique<LiveView>(run_dir.path(), !options.quiet && ::isatty(STDERR_FILENO),
                                           std::move(live_analysis));
    std::unique_ptr<journal::SharedJournal> shared = make_shared_journal();
    const std::string& data_dir = request.layout.data_dir;
    supervisor::Fingerprint fingerprint(request.python.executable,
                                        data_dir.empty() || request.python.executable.empty()
                                            ? ""
                                            : data_dir + "/fingerprint.py",
                                        (run_dir.path() / "fingerprint.json").string());

    Launched launched = launch(options, request, run_dir, *live, shared.get(), inbox, fingerprint.pid());
    analysis::RunModel model = live->finish();
    nlohmann::json fingerprint_facts = fingerprint.finish(launched.end.reaped);
    record_ends(info, launched, model);
    std::vector<std::string> failures = tool_failures(launched, info, request, run_dir, shared.get());
    model.problems.insert(model.problems.end(), failures.begin(), failures.end());

    const std::vector<analysis::Finding> findings = find_hazards(model, data_dir, hash_file);
    info.untraced = analysis::find_untraced(model, traced_minors(request.layout), observed_pythons(launched.end));
    info.environment = describe_environment(std::move(fingerprint_facts), model, options);
    // The module records go from the model straight into the file's text (report_writer.cpp).
    nlohmann::json report_json = report::build_report(info, model, findings);
    const report::Outcome outcome = report::decide_outcome(
        {failures, selected_findings(report_json, request.gate), info.exit, options.ignore_target_status});
    report_json["run"]["outcome"] = outcome;
    report::redact_secrets(report_json);
    if (redact)
        report::redact_paths(report_json, *redact);
    write_report_file(options.output, report_json, model, redact, run_dir, shared.get());
    if (!options.quiet || !report_json.at("findings").empty())
        print_to_stderr(report::render(report_json, request.summary_format, stderr_wants_color()));
    if (!options.quiet)
        print_to_stderr(fmt::format("importscope: report written to {}\n", options.output));
    if (outcome.reason == "tool-failure")
        print_to_stderr(fmt::format("importscope: error: {}\n", outcome.message));
    else if (outcome.status != 0 && outcome.reason != "findings" && !options.quiet)
        // A CI log says at its end why the step failed when importscope found nothing.
        print_to_stderr(fmt::format("importscope: exit status {}: {}\n", outcome.status, outcome.message));

    // The records are not freed one by one before the exit status.
    keep_until_exit(std::move(model));
    keep_until_exit(std::move(live));
    keep_until_exit(std::move(shared));
    return outcome.status;
}

} // namespace importscope::cli
