#include "importscope/cli/run_command.hpp"

#include "importscope/app/job_place.hpp"

#include <fmt/format.h>

#include <algorithm>

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
                                app::k_output_placeholders))
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

} // namespace importscope::cli
