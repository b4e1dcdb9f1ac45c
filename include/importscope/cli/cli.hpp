#pragma once

namespace importscope {

/// The whole command line tool: parses arguments, runs the subcommand, and is the one place that
/// turns an exception into "importscope: error: ..." and a documented exit status.
int run_cli(int argc, char** argv);

} // namespace importscope
