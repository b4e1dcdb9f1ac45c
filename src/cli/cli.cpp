#include "importscope/cli/cli.hpp"

#include "importscope/app/install_layout.hpp"
#include "cli/journal_command.hpp"
#include "cli/report_commands.hpp"
#include "importscope/cli/run_command.hpp"
#include "cli/scan_command.hpp"
#include "cli/usage.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/error.hpp"
#include "importscope/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <csignal>
#include <string>
#include <vector>

namespace importscope {

namespace {

/// `importscope --version`: the version and the CPython minors it has a worker for.
std::string version_text()
{
    const std::vector<std::string> minors = app::worker_minors(app::find_install_layout());
    return fmt::format("importscope {} (CPython {})", k_version,
                       minors.empty() ? std::string("workers missing") : fmt::format("{}", fmt::join(minors, ", ")));
}

/// A usage error as one line, with the way to the help of the command it concerns.
int usage_error(const std::string& message, const std::string& subcommand, ExitStatus status)
{
    print_to_stderr(fmt::format("importscope: error: {}; see 'importscope {}--help'\n", message,
               subcommand.empty() ? "" : subcommand + " "));
    return static_cast<int>(status);
}

/// The option words of `words` that `app` does not know, refused with a suggestion. Stops at
/// `--`: what follows is not importscope's.
void check_option_words(const CLI::App& app, const std::vector<std::string>& words)
{
    for (const std::string& word : words) {
        if (word == "--")
            return;
        if (word.size() < 2 || word[0] != '-' || (word[1] >= '0' && word[1] <= '9'))
            continue;
        const std::string name = word.starts_with("--") ? word.substr(0, word.find('=')) : word.substr(0, 2);
        if (!app.get_option_no_throw(name))
            throw CLI::ParseError(fmt::format("unknown option {}{}", name, cli::did_you_mean(name, cli::option_names(app))),
                                  static_cast<int>(ExitStatus::usage));
    }
}

bool has_subcommand(const CLI::App& app, const std::string& name)
{
    const auto names = cli::subcommand_names(app);
    return std::find(names.begin(), names.end(), name) != names.end();
}

/// The command line's words as CLI11 should see them: importscope's global options, the command,
/// and its own options; for `run`, the target's words are split off into `run_options`. Throws
/// CLI::ParseError for an option the command does not know.
std::vector<std::string> words_to_parse(CLI::App& app, CLI::App& run, app::RunOptions& run_options,
                                        const std::vector<std::string>& words, std::size_t at)
{
    std::vector<std::string> parsed(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(at));
    check_option_words(app, parsed);
    if (at < words.size()) {
        parsed.push_back(words[at]);
        std::vector<std::string> rest(words.begin() + static_cast<std::ptrdiff_t>(at) + 1, words.end());
        if (words[at] == "run") {
            // The target's arguments are never ours to parse: split them off before CLI11 sees them.
            auto split = cli::split_target_arguments(run, rest);
            rest = std::move(split.own);
            run_options.program = std::move(split.command);
            run_options.target_args = std::move(split.target_args);
        }
        check_option_words(*app.get_subcommand(words[at]), rest);
        parsed.insert(parsed.end(), rest.begin(), rest.end());
    }
    std::reverse(parsed.begin(), parsed.end()); // CLI11 takes a vector in reverse order
    return parsed;
}

/// The one exception boundary around a command: an Error is its line and status; anything else
/// an internal error.
int run_guarded(const std::function<int()>& command, ExitStatus usage_status)
{
    try {
        return command();
    } catch (const Error& e) {
        print_to_stderr(fmt::format("importscope: error: {}\n", e.what()));
        return static_cast<int>(e.status() == ExitStatus::usage ? usage_status : e.status());
    } catch (const std::exception& e) {
        print_to_stderr(fmt::format("importscope: error: internal error: {}\n", e.what()));
        return static_cast<int>(usage_status);
    }
}

} // namespace

int run_cli(int argc, char** argv)
{
    // A closed descriptor 2 would be taken by the next file opened; a reader that went away
    // (2>&1 | head -c1) must be an error to handle, not SIGPIPE.
    const unsigned closed_at_start = ensure_standard_descriptors();
    std::signal(SIGPIPE, SIG_IGN); // NOLINT(cert-err33-c): SIG_IGN cannot fail for SIGPIPE
    CLI::App app{"importscope: find native extensions that Python initializes under two module names.", "importscope"};
    app.set_version_flag("--version", [] { return version_text(); });
    app.require_subcommand(1);
    app.footer("Run 'importscope run --help' for the options of a run. Documentation: docs/ in the source tree.");

    app::RunOptions run_options;
    CLI::App* run = cli::setup_run(app, run_options);
    app::ReportOptions report_options;
    CLI::App* report = cli::setup_report(app, report_options);
    app::DiffOptions diff_options;
    CLI::App* diff = cli::setup_diff(app, diff_options);
    app::MergeOptions merge_options;
    CLI::App* merge = cli::setup_merge(app, merge_options);
    app::ScanOptions scan_options;
    CLI::App* scan = cli::setup_scan(app, scan_options);
    app::JournalOptions journal_options;
    CLI::App* journal_dump = cli::setup_journal(app, journal_options);

    const std::vector<std::string> words(argv + 1, argv + argc);
    if (words.empty()) {
        print_to_stderr(cli::short_help(app));
        return static_cast<int>(ExitStatus::usage);
    }
    run_options.argv.assign(argv, argv + argc);
    run_options.stdin_closed = (closed_at_start & 1U) != 0;
    scan_options.argv = run_options.argv;
    std::size_t at = 0;
    while (at < words.size() && words[at].starts_with("-"))
        ++at;
    const std::string subcommand = at < words.size() ? words[at] : "";
    // run is a command wrapper: its own failures, bad usage among them, are 125, as timeout's are.
    const ExitStatus usage_status = subcommand == "run" ? ExitStatus::tool_failure : ExitStatus::usage;
    if (!subcommand.empty() && !has_subcommand(app, subcommand))
        return usage_error(fmt::format("unknown command '{}'{}", subcommand,
                                       cli::did_you_mean(subcommand, cli::subcommand_names(app))),
                           "", ExitStatus::usage);
    try {
        app.parse(words_to_parse(app, *run, run_options, words, at));
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what(), subcommand, usage_status);
    }
    return run_guarded(
        [&] {
            run_options.timeout_given = run->count("--timeout") > 0;
            if (run->parsed())
                return app::run(run_options);
            if (report->parsed())
                return app::render_report_file(report_options);
            if (diff->parsed())
                return app::diff_report_files(diff_options);
            if (merge->parsed())
                return app::merge_report_files(merge_options);
            if (scan->parsed())
                return app::scan(scan_options);
            if (journal_dump->parsed())
                return app::dump_journal_file(journal_options);
            return static_cast<int>(ExitStatus::usage);
        },
        usage_status);
}

} // namespace importscope
