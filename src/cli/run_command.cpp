#include "cli/run_command.hpp"

#include "cli/job_place.hpp"
#include "cli/run_stages.hpp"
#include "importscope/analysis/task_launchers.hpp"
#include "importscope/analysis/untraced.hpp"
#include "importscope/collect/collector.hpp"
#include "importscope/supervisor/environment.hpp"
#include "importscope/supervisor/signals.hpp"
#include "importscope/util/keep_until_exit.hpp"

#include <algorithm>
#include <memory>
#include <optional>
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
    run->add_option("-o,--output", options.output,
                    fmt::format("Where to write the JSON report. Placeholders give each rank of a job its own: {}",
                                k_output_placeholders))
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
                    "Which findings make the exit status 3: error, warning, none, or a comma list of kinds")
        ->capture_default_str();
    run->add_option("--format", options.format, "The summary on stderr: text, markdown, junit, dot or sarif")
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
        "target's own status when it failed (128+N for signal N; its own 124-127 become 1); 124 --timeout ended it; 125 importscope "
        "itself failed (usage, set-up, hooks, journals, report); 126 COMMAND cannot be run; 127 not found.");
    return run;
}

/// How long a FIFO named by -o is waited for to have a reader: what is left of --timeout, counted
/// from the target's start (at least a second), else k_reader_wait_s.
double reader_wait(const RunRequest& request, const Launched& launched)
{
    if (!request.options.timeout_given)
        return k_reader_wait_s;
    const double ran_s = static_cast<double>(launched.ended_ns - launched.started_ns) / 1e9;
    return std::max(1.0, request.options.timeout_s - ran_s);
}

int run_run(const RunOptions& options)
{
    // Request: everything wrong with it is found before anything runs.
    const RunRequest request = make_request(options);
    // From the launch to the exit, no signal ends importscope: while the target runs they are passed
    // on, and once it ended the report is written whatever comes (a FIFO's wait is bounded).
    const supervisor::HeldSignals held;
    report::RunInfo info = make_run_info(request);
    supervisor::RunDir run_dir;
    journal::ProblemInbox inbox;
    std::unique_ptr<journal::SharedJournal> shared = make_shared_journal();
    const analysis::FileHasher hash_file = cached_hasher();
    const analysis::DistributionLookup distribution_of = cached_distributions();
    const std::string& data_dir = request.layout.data_dir;
    std::optional<supervisor::Fingerprint> fingerprint; // started once the target is
    auto start_fingerprint = [&] {
        fingerprint.emplace(request.python.executable,
                            data_dir.empty() || request.python.executable.empty() ? "" : data_dir + "/fingerprint.py",
                            (run_dir.path() / "fingerprint.json").string());
        return fingerprint->pid() > 0 ? std::set<int>{fingerprint->pid()} : std::set<int>{};
    };

    // Launch, with the collect stage reading the journals as they grow.
    analysis::AnalysisOptions live_analysis;
    live_analysis.hash_file = hash_file;
    live_analysis.distribution_of = distribution_of;
    auto collector = std::make_unique<collect::Collector>(run_dir.path(), std::move(live_analysis));
    collector->follow(shared.get());
    analysis::RunModel model;
    Launched launched;
    const std::string& output = request.options.output; // its placeholders expanded
    EarlyReport early_report(output, request.redact(), *collector, request.output_before); // the records, while the target finalizes
    {
        LiveView live(*collector, !options.quiet && ::isatty(STDERR_FILENO));
        launched = launch(request, make_worker_plan(request, run_dir, inbox, shared.get()), inbox, live,
                          start_fingerprint, [&] { early_report.offer(); });
    }
    model = collector->finish();

    // Collect what the supervisor saw.
    nlohmann::json fingerprint_facts = fingerprint ? fingerprint->finish(launched.end.reaped) : nullptr;
    record_ends(info, launched, model);
    const std::vector<std::string> failures = tool_failures(launched, info, request.is_program(), run_dir, shared.get());
    model.problems.insert(model.problems.end(), failures.begin(), failures.end());
    for (std::string& note : supervision_notes(launched, info))
        model.problems.push_back(std::move(note));

    // Analyze.
    const std::vector<analysis::Finding> findings = find_hazards(model, data_dir, hash_file, distribution_of);
    info.untraced =
        analysis::find_untraced(model, traced_minors(request.layout), observed_pythons(launched.end, run_dir.path()));
    for (analysis::UntracedProcess& launcher :
         analysis::untraced_launchers(model, observed_launchers(request, launched.end)))
        info.untraced.push_back(std::move(launcher));
    info.environment = describe_environment(std::move(fingerprint_facts), model, distribution_of, options.env_prefixes);

    // Report, and the exit status.
    report::Outcome outcome;
    const bool not_executed = program_not_executed(launched.end.start_words);
    const nlohmann::json report_json = make_report(request, info, model, findings, failures, not_executed, outcome);
    const std::filesystem::path written = write_report_file(output, report_json, model, request.redact(), run_dir,
                                                            shared.get(), &early_report, reader_wait(request, launched),
                                                            request.output_before);
    print_outcome(request, report_json, outcome, written);

    // The records are not freed one by one before the exit status.
    keep_until_exit(std::move(model));
    keep_until_exit(std::move(collector));
    keep_until_exit(std::move(shared));
    return outcome.status;
}

} // namespace importscope::cli
