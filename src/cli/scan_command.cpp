#include "cli/scan_command.hpp"

namespace importscope::cli {

CLI::App* setup_scan(CLI::App& app, ScanOptions& options)
{
    CLI::App* scan = app.add_subcommand(
        "scan", "Examine an environment, or source trees, for the hazards of `run` without running anything:\n"
                "  importscope scan [OPTIONS] [PATH...]");
    scan->add_option("PATH", options.paths,
                     "Source trees or site-packages directories to scan (default: the interpreter's sys.path)");
    scan->add_option("--python", options.python,
                     "The interpreter whose sys.path is scanned and whose ast parses the sources "
                     "(default: $VIRTUAL_ENV/bin/python, else python3 on PATH)")
        ->type_name("PATH");
    scan->add_flag("--environment", options.environment, "With PATHs: scan the interpreter's sys.path too");
    scan->add_option("-o,--output", options.output, "Where to write the JSON report")
        ->type_name("FILE")
        ->capture_default_str();
    scan->add_option("--fail-on", options.fail_on,
                     "Which findings make the exit status 1: error, warning, none, or a comma list of kinds")
        ->capture_default_str();
    scan->add_option("--format", options.format, "The summary on stderr: text, markdown, junit, dot or sarif")
        ->capture_default_str();
    scan->add_option("--timeout", options.timeout_s, "Give up after SECONDS")->type_name("SECONDS")->capture_default_str();
    scan->add_flag("-q,--quiet", options.quiet, "Print nothing but findings and errors");
    scan->add_flag("--redact-paths", options.redact_paths,
                   "Write the home directory as ~ and the user name as <user> everywhere in the report");
    scan->footer("Nothing scanned is imported or executed: sources are parsed by the interpreter's own ast.\n"
                 "Exit status: 0 no finding that --fail-on selects; 1 such a finding; 2 bad usage; 125 the scan "
                 "could not be done (the interpreter failed, the report could not be written) or is incomplete (a source "
                 "file or directory it could not read, named in the report).");
    return scan;
}

} // namespace importscope::cli
