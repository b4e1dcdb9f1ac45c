#include "cli/run_command.hpp"

#include "cli/bootstrap_location.hpp"
#include "cli/live_view.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/known_issues.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/embed/worker.hpp"
#include "importscope/journal/reader.hpp"
#include "importscope/journal/shared_journal.hpp"
#include "importscope/report/gate.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/report/render.hpp"
#include "importscope/report/report.hpp"
#include "importscope/report/summary.hpp"
#include "importscope/supervisor/environment.hpp"
#include "importscope/supervisor/python_locator.hpp"
#include "importscope/supervisor/run_dir.hpp"
#include "importscope/supervisor/stragglers.hpp"
#include "importscope/supervisor/supervisor.hpp"
#include "importscope/util/atomic_file.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/error.hpp"
#include "importscope/util/keep_until_exit.hpp"
#include "importscope/util/sha256.hpp"
#include "importscope/version.hpp"

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
    CLI::App* run = app.add_subcommand("run", "Run a Python target under the import hooks and write a report:\n"
                                              "  importscope run [OPTIONS] (SCRIPT | -m MODULE | -c CODE) [ARGS...]");
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
    run->add_flag("-q,--quiet", options.quiet, "No live status line on a terminal");
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
    run->add_option("SCRIPT", options.script, "The Python file (or directory with __main__.py) to run");
    run->footer("Everything after SCRIPT, -m MODULE or -c CODE is passed to the target untouched.\n"
                "Exit status: 0 no finding that --fail-on selects (default: severity error), 1 at least one, "
                "2 bad usage or set-up (nothing was run).\nThe target's own exit status or signal is in the report "
                "(run.exit).");
    return run;
}

namespace {

embed::Target make_target(const RunOptions& options)
{
    const int given = !options.script.empty() + !options.module.empty() + !options.command.empty();
    if (given == 0)
        throw Error("nothing to run: give a SCRIPT, -m MODULE or -c CODE (see importscope run --help)");
    if (given > 1)
        throw Error("give only one of SCRIPT, -m MODULE and -c CODE");
    embed::Target target;
    target.args = options.target_args;
    if (!options.module.empty()) {
        target.kind = embed::TargetKind::module;
        target.value = options.module;
        return target;
    }
    if (!options.command.empty()) {
        target.kind = embed::TargetKind::command;
        target.value = options.command;
        return target;
    }
    target.kind = embed::TargetKind::script;
    target.value = options.script;
    struct stat st {};
    if (::stat(options.script.c_str(), &st) != 0)
        throw Error(fmt::format("cannot run {}: no such file", options.script));
    if (S_ISDIR(st.st_mode) && ::access((options.script + "/__main__.py").c_str(), R_OK) != 0)
        throw Error(fmt::format("cannot run {}: it is a directory without a __main__.py", options.script));
    if (::access(options.script.c_str(), R_OK) != 0)
        throw Error(fmt::format("cannot run {}: not readable", options.script));
    return target;
}

const char* kind_name(embed::TargetKind kind)
{
    switch (kind) {
    case embed::TargetKind::script:
        return "script";
    case embed::TargetKind::module:
        return "module";
    case embed::TargetKind::command:
        return "command";
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

} // namespace

int run_run(const RunOptions& options)
{
    // Everything that can be wrong with the request is found before anything runs.
    embed::Target target = make_target(options);
    if (options.timeout_given && !(options.timeout_s > 0))
        throw Error(fmt::format("--timeout {} is not a positive number of seconds", options.timeout_s));
    if (options.match.empty())
        throw Error("--match needs at least one PATTERN");
    check_writable_destination(options.output);
    const report::FailOn gate = report::FailOn::parse(options.fail_on);
    const report::Format summary_format = report::parse_format(options.format);
    const supervisor::PythonInstallation python =
        supervisor::locate_python(options.python.empty() ? supervisor::default_python() : options.python);
    const std::string bootstrap = options.no_follow ? std::string{} : find_bootstrap_dir();

    supervisor::RunDir run_dir;
    embed::WorkerPlan plan;
    plan.python_executable = python.executable;
    plan.foreign_installation = python.foreign;
    if (python.foreign)
        plan.fallback_dynload = k_linked_python_dynload;
    plan.target = target;
    plan.match = options.match;
    plan.run_dir = run_dir.path().string();
    plan.follow = !options.no_follow;
    plan.bootstrap_dir = bootstrap;

    report::RunInfo info;
    info.argv = options.argv;
    info.cwd = current_directory();
    info.host = host_name();
    info.target_kind = kind_name(target.kind);
    info.target = target.value;
    info.target_args = target.args;
    info.python_executable = python.executable;
    info.match = options.match;
    info.follow = plan.follow;
    if (options.timeout_given)
        info.timeout_s = options.timeout_s;

    std::optional<report::PathRedaction> redaction;
    if (options.redact_paths)
        redaction.emplace(home_directory(), user_name());
    const report::PathRedaction* redact = redaction ? &*redaction : nullptr;

    // The model and the module records' text are made as the journals grow (live_view.hpp).
    auto live = std::make_unique<LiveView>(run_dir.path(), !options.quiet && ::isatty(STDERR_FILENO), redact);
    // The worker's own journal goes to memory shared with it; where that cannot be had, or where
    // the target's address space is limited (the shared memory takes 1 GiB of it, if little of
    // the memory), to a file.
    std::unique_ptr<journal::SharedJournal> shared;
    rlimit address_space{};
    if (::getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur == RLIM_INFINITY)
        try {
            shared = std::make_unique<journal::SharedJournal>();
            plan.shared_journal = shared->data();
            plan.shared_journal_capacity = shared->capacity();
            live->follow(shared.get());
        } catch (const Error&) {
        }
    supervisor::SuperviseOptions supervise_options;
    if (options.timeout_given)
        supervise_options.timeout_s = options.timeout_s;
    // The journals are read as they grow, whether or not a status line shows them, and often: what
    // is left to read when the target ends is what it wrote since the last tick.
    supervise_options.tick_s = 0.02;
    supervise_options.on_tick = [&] { return live->update() && options.stop_on_finding; };

    const std::string data_dir = find_data_dir();
    supervisor::Fingerprint fingerprint(python.executable, data_dir.empty() ? "" : data_dir + "/fingerprint.py",
                                        (run_dir.path() / "fingerprint.json").string());
    info.started_ns = wall_ns();
    supervisor::ProcessEnd end = supervisor::supervise([&] { embed::run_worker(plan); }, supervise_options);
    info.ended_ns = wall_ns();
    analysis::RunModel model = live->finish();
    nlohmann::json fingerprint_facts = fingerprint.finish(end.reaped);

    info.main_pid = end.pid;
    info.exit = to_exit_info({end.code, end.signal, end.core_dumped}, "");
    info.exit.timed_out = end.timed_out;
    info.exit.stopped_on_finding = end.stopped;
    info.exit.forwarded_signal = end.forwarded_signal;
    for (const auto& [pid, status] : end.reaped)
        info.seen_ends[pid] = to_exit_info(status, "reaped");
    if (end.timed_out || end.stopped || end.forwarded_signal) {
        // Traced processes that left the process group and outlived the end of the run.
        std::vector<int> unaccounted;
        for (const auto& p : model.processes)
            if (!p.end && p.pid != end.pid && !info.seen_ends.count(p.pid))
                unaccounted.push_back(p.pid);
        for (int pid : supervisor::kill_stragglers(run_dir.path(), unaccounted))
            info.seen_ends[pid] = to_exit_info({std::nullopt, SIGKILL, false}, "killed");
    }
    for (const auto& p : model.processes)
        if (p.pid == end.pid && info.python_version.empty())
            info.python_version = p.python_version;

    // Explain: content hashes of loaded extensions (once each), known issues, the environment.
    std::map<std::string, std::optional<std::string>> hashes;
    analysis::AnalysisOptions analysis_options;
    analysis_options.hash_file = [&](const std::string& path) {
        auto [it, inserted] = hashes.try_emplace(path);
        if (inserted)
            it->second = sha256_file(path);
        return it->second;
    };
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
    const std::vector<analysis::Finding> findings = analysis::analyze(model, analysis_options);
    if (!catalogue_problem.empty())
        model.problems.push_back(std::move(catalogue_problem));

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
    info.environment =
        supervisor::collect_environment(std::move(fingerprint_facts), {top_levels.begin(), top_levels.end()}, env_prefixes);

    // The module records go from the model straight into the file's text (report_text.cpp).
    nlohmann::json report_json = report::build_report(info, model, findings, report::ModuleRecords::deferred);
    if (redaction)
        report::redact_paths(report_json, *redaction);
    try {
        write_file_atomically(options.output, [&](const TextSink& sink) {
            report::write_report(report_json, model, redact, sink, &live->record_texts());
        });
    } catch (const Error& e) {
        run_dir.keep();
        if (shared && !shared->name().empty()) // into the empty file that holds its name
            try {
                write_file_atomically(run_dir.path() / shared->name(), shared->written(journal::SharedJournal::k_header));
            } catch (const Error&) {
            }
        throw Error(fmt::format("{} (the journals are kept in {})", e.what(), run_dir.path().string()));
    }
    fmt::print(stderr, "{}", report::render(report_json, summary_format, stderr_wants_color()));
    fmt::print(stderr, "importscope: report written to {}\n", options.output);

    const auto& reported = report_json.at("findings");
    const bool fails = std::any_of(reported.begin(), reported.end(), [&](const auto& f) { return gate.fails(f); });
    // The records and their texts are not freed one by one before the exit status.
    keep_until_exit(std::move(model));
    keep_until_exit(std::move(live));
    keep_until_exit(std::move(shared));
    return static_cast<int>(fails ? ExitStatus::findings : ExitStatus::ok);
}

} // namespace importscope::cli
