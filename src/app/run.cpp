#include "importscope/app/run.hpp"

#include "importscope/app/job_place.hpp"
#include "importscope/app/run_stages.hpp"
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

namespace importscope::app {

/// How long a FIFO named by -o is waited for to have a reader: what is left of --timeout, counted
/// from the target's start (at least a second), else k_reader_wait_s.
double reader_wait(const RunRequest& request, const Launched& launched)
{
    if (!request.options.timeout_given)
        return k_reader_wait_s;
    const double ran_s = static_cast<double>(launched.ended_ns - launched.started_ns) / 1e9;
    return std::max(1.0, request.options.timeout_s - ran_s);
}

int run(const RunOptions& options)
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
    // The findings as the journals grow are for the status line and --stop-on-finding alone.
    const bool show_status = !options.quiet && ::isatty(STDERR_FILENO);
    const auto findings = show_status || request.options.stop_on_finding ? collect::Collector::Findings::live
                                                                         : collect::Collector::Findings::at_the_end;
    auto collector = std::make_unique<collect::Collector>(run_dir.path(), std::move(live_analysis), findings);
    collector->follow(shared.get());
    analysis::RunModel model;
    Launched launched;
    const std::string& output = request.options.output; // its placeholders expanded
    EarlyReport early_report(output, request.redact(), *collector, request.output_before); // the records, while the target finalizes
    {
        LiveView live(*collector, show_status);
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
    const analysis::Conclusions conclusions = find_hazards(model, data_dir, hash_file, distribution_of);
    info.untraced =
        analysis::find_untraced(model, traced_minors(request.layout), observed_pythons(launched.end, run_dir.path()));
    for (analysis::UntracedProcess& launcher :
         analysis::untraced_launchers(model, observed_launchers(request, launched.end)))
        info.untraced.push_back(std::move(launcher));
    info.environment = describe_environment(std::move(fingerprint_facts), model, distribution_of, options.env_prefixes);

    // Report, and the exit status.
    report::Outcome outcome;
    const bool not_executed = program_not_executed(launched.end.start_words);
    const report::Document report = make_report(request, info, model, conclusions, failures, not_executed, outcome);
    const std::filesystem::path written =
        write_report_file(output, report, model, request.redact(), run_dir, shared.get(), &early_report,
                          reader_wait(request, launched), request.output_before);
    print_outcome(request, report, outcome, written);

    // The records are not freed one by one before the exit status.
    keep_until_exit(std::move(model));
    keep_until_exit(std::move(collector));
    keep_until_exit(std::move(shared));
    return outcome.status;
}

} // namespace importscope::app
