#include "cli/report_commands.hpp"

namespace importscope::cli {

namespace {

constexpr const char* k_status_footer = "Exit status: 0 done, 1 see the command's description, 2 bad usage or an input "
                                        "that is not an importscope report (nothing is written then).";

} // namespace

CLI::App* setup_report(CLI::App& app, ReportOptions& options)
{
    CLI::App* cmd = app.add_subcommand("report", "Render a report for a terminal, an issue, CI or Graphviz");
    cmd->add_option("FILE", options.input, "The JSON report")->required();
    cmd->add_option("--format", options.format, "text, markdown, junit, dot or sarif (for code scanning)")
        ->capture_default_str();
    cmd->add_option("-o,--output", options.output, "Write here instead of standard output")->type_name("OUT");
    cmd->footer(k_status_footer);
    return cmd;
}

CLI::App* setup_diff(CLI::App& app, DiffOptions& options)
{
    CLI::App* cmd = app.add_subcommand(
        "diff", "Compare two reports: which findings disappeared, appeared or stayed, which versions changed. "
                "Exit status 1 when NEW has a finding that --fail-on selects and OLD did not");
    cmd->add_option("OLD", options.old_report, "The report from before")->required();
    cmd->add_option("NEW", options.new_report, "The report from after")->required();
    cmd->add_option("--fail-on", options.fail_on,
                    "Which new findings fail: error, warning, none, or a comma list of kinds")
        ->capture_default_str();
    cmd->add_option("-o,--output", options.output, "Write here instead of standard output")->type_name("OUT");
    cmd->footer(k_status_footer);
    return cmd;
}

CLI::App* setup_merge(CLI::App& app, MergeOptions& options)
{
    CLI::App* cmd = app.add_subcommand("merge", "Merge the reports of several nodes or ranks into one");
    cmd->add_option("FILES", options.inputs, "The reports to merge")->required();
    cmd->add_option("-o,--output", options.output, "The merged report")->required()->type_name("ALL.json");
    cmd->footer(k_status_footer);
    return cmd;
}

} // namespace importscope::cli
