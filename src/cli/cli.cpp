#include "importscope/cli/cli.hpp"

#include "cli/report_commands.hpp"
#include "cli/run_command.hpp"
#include "importscope/util/error.hpp"
#include "importscope/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>
#include <vector>

namespace importscope {

namespace {

/// CLI11 reports its own errors through app.exit(); map them onto the documented statuses.
int exit_for_parse_error(const CLI::App& app, const CLI::ParseError& e)
{
    const int printed = app.exit(e);
    return printed == 0 ? 0 : static_cast<int>(ExitStatus::usage);
}

} // namespace

int run_cli(int argc, char** argv)
{
    CLI::App app{"importscope: find native extensions that Python initializes under two module names.", "importscope"};
    app.set_version_flag("--version", fmt::format("importscope {} (Python {})", k_version, k_linked_python_version));
    app.require_subcommand(1);
    app.footer("Run 'importscope run --help' for the options of a run. Documentation: docs/ in the source tree.");

    cli::RunOptions run_options;
    CLI::App* run = cli::setup_run(app, run_options);
    cli::ReportOptions report_options;
    CLI::App* report = cli::setup_report(app, report_options);
    cli::DiffOptions diff_options;
    CLI::App* diff = cli::setup_diff(app, diff_options);
    cli::MergeOptions merge_options;
    CLI::App* merge = cli::setup_merge(app, merge_options);

    // The target's arguments are never ours to parse: split them off before CLI11 sees the line.
    std::vector<std::string> words(argv + 1, argv + argc);
    run_options.argv.assign(argv, argv + argc);
    std::size_t subcommand = 0;
    while (subcommand < words.size() && words[subcommand].starts_with("-"))
        ++subcommand;
    std::vector<std::string> parsed(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(subcommand));
    if (subcommand < words.size()) {
        parsed.push_back(words[subcommand]);
        if (words[subcommand] == "run") {
            auto [own, target_args] = cli::split_target_arguments(
                *run,
                std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(subcommand) + 1, words.end()));
            parsed.insert(parsed.end(), own.begin(), own.end());
            run_options.target_args = std::move(target_args);
        } else {
            parsed.insert(parsed.end(), words.begin() + static_cast<std::ptrdiff_t>(subcommand) + 1, words.end());
        }
    }

    try {
        std::reverse(parsed.begin(), parsed.end()); // CLI11 takes a vector in reverse order
        app.parse(parsed);
    } catch (const CLI::ParseError& e) {
        return exit_for_parse_error(app, e);
    }

    try {
        run_options.timeout_given = run->count("--timeout") > 0;
        if (run->parsed())
            return cli::run_run(run_options);
        if (report->parsed())
            return cli::run_report(report_options);
        if (diff->parsed())
            return cli::run_diff(diff_options);
        if (merge->parsed())
            return cli::run_merge(merge_options);
        return static_cast<int>(ExitStatus::usage);
    } catch (const Error& e) {
        fmt::print(stderr, "importscope: error: {}\n", e.what());
        return static_cast<int>(e.status());
    } catch (const std::exception& e) {
        fmt::print(stderr, "importscope: error: internal error: {}\n", e.what());
        return static_cast<int>(ExitStatus::usage);
    }
}

} // namespace importscope
