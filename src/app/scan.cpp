#include "importscope/app/scan.hpp"

#include "importscope/app/install_layout.hpp"
#include "importscope/app/run_stages.hpp"
#include "importscope/analysis/scan.hpp"
#include "importscope/collect/distributions.hpp"
#include "importscope/report/gate.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/report/render.hpp"
#include "importscope/report/report.hpp"
#include "importscope/report/scan_report.hpp"
#include "importscope/supervisor/python_locator.hpp"
#include "importscope/util/atomic_file.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"
#include "importscope/util/host.hpp"
#include "importscope/util/regular_file.hpp"
#include "importscope/util/run_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace importscope::app {

namespace {

/// The scanner's command line: the examined interpreter running scanner.py isolated (-I: no
/// PYTHONPATH, user site or script directory; -S: no site, so no .pth line, sitecustomize or
/// usercustomize runs). The scanner works out the sys.path start-up would build from files read as text.
std::vector<std::string> scanner_command(const ScanOptions& options, const std::string& python,
                                         const std::string& scanner)
{
    std::vector<std::string> argv{python, "-I", "-S", scanner};
    if (options.paths.empty() || options.environment)
        argv.emplace_back("--environment");
    for (const std::string& path : options.paths) {
        argv.emplace_back("--path");
        argv.push_back(std::filesystem::absolute(path).string());
    }
    if (!options.quiet && ::isatty(STDERR_FILENO))
        argv.emplace_back("--progress");
    return argv;
}

analysis::ScanFacts scan_facts(const ScanOptions& options, const std::string& python, const InstallLayout& layout)
{
    if (layout.data_dir.empty())
        throw Error("importscope's data directory (share/importscope, with scanner.py) is missing",
                    ExitStatus::tool_failure);
    const std::vector<std::string> argv = scanner_command(options, python, layout.data_dir + "/scanner.py");
    const CapturedRun scan = capture_program(argv, options.timeout_s, true);
    switch (scan.end) {
    case CapturedRun::End::succeeded:
        break;
    case CapturedRun::End::timed_out:
        throw Error(fmt::format("the scan with {} took more than {} s and was stopped (--timeout)", python,
                                options.timeout_s),
                    ExitStatus::tool_failure);
    case CapturedRun::End::failed:
        throw Error(fmt::format("the scan with {} failed ({}); what it said is above", python, scan.how),
                    ExitStatus::tool_failure);
    case CapturedRun::End::not_started:
        throw Error(fmt::format("the scan with {} could not be started", python), ExitStatus::tool_failure);
    }
    try {
        return analysis::parse_scan_facts(scan.output);
    } catch (const std::invalid_argument& e) {
        throw Error(fmt::format("the scan with {}: {}", python, e.what()), ExitStatus::tool_failure);
    }
}

} // namespace

int scan(const ScanOptions& options)
{
    const report::FailOn gate = report::FailOn::parse(options.fail_on);
    const report::Format format = report::parse_format(options.format);
    if (!(options.timeout_s > 0))
        throw Error(fmt::format("--timeout {} is not a positive number of seconds", options.timeout_s));
    for (const std::string& path : options.paths)
        if (std::error_code ec; !std::filesystem::exists(path, ec))
            throw Error(fmt::format("{}: no such file or directory", path));
    // Never over what the scan reads: a source file given, the interpreter (and, as a report only
    // replaces a report, any source file or program of the scanned trees).
    std::vector<std::filesystem::path> inputs{options.paths.begin(), options.paths.end()};
    if (!options.python.empty())
        inputs.emplace_back(options.python);
    check_writable_destination(options.output, inputs, Replaces::report_only);
    const InstallLayout layout = find_install_layout();
    const std::string python =
        supervisor::locate_python(options.python.empty()
                                      ? supervisor::default_python(layout.installed ? layout.binary_dir : std::string{})
                                      : options.python)
            .executable;

    report::ScanInfo info{options.argv, current_directory(), host_name(), python, options.paths,
                          options.paths.empty() || options.environment, wall_ns(), 0};
    const analysis::ScanFacts facts = scan_facts(options, python, layout);
    collect::DistributionIndex distributions;
    analysis::AnalysisOptions analysis_options;
    analysis_options.hash_file = cached_hasher();
    analysis_options.file_exists = is_regular_file;
    analysis_options.distribution_of = [&distributions](const std::string& origin) {
        return distributions.owners_of(origin);
    };
    std::optional<analysis::KnownIssueCatalogue> catalogue; // read only when there are findings
    std::string catalogue_problem;
    analysis_options.known_issues = [&]() -> const analysis::KnownIssueCatalogue* {
        catalogue = read_known_issues(layout.data_dir, catalogue_problem);
        return catalogue ? &*catalogue : nullptr;
    };
    const std::vector<analysis::Finding> findings = analysis::find_static_hazards(facts, analysis_options);
    info.ended_ns = wall_ns();

    const report::Outcome outcome = report::decide_scan_outcome(gate.count(findings), facts.unread);
    report::Document report = report::build_scan_report(info, facts, findings, outcome);
    if (!catalogue_problem.empty())
        report.problems.push_back(catalogue_problem);
    std::optional<report::PathRedaction> redaction;
    if (options.redact_paths)
        redaction.emplace(home_directory(), user_name());
    report::redact(report, redaction ? &*redaction : nullptr);
    try {
        write_file_atomically(options.output, report::pretty_text(nlohmann::json(report)));
    } catch (const Error& e) {
        throw Error(e.what(), ExitStatus::tool_failure);
    }
    if (!options.quiet || !findings.empty())
        print_to_stderr(report::render(report, format, stderr_wants_color()));
    if (outcome.status == static_cast<int>(ExitStatus::tool_failure))
        print_to_stderr(fmt::format("importscope: error: {}\n", outcome.message));
    if (!options.quiet)
        print_to_stderr(fmt::format("importscope: report written to {}\n", options.output));
    return outcome.status;
}

} // namespace importscope::app
