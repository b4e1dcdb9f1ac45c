#pragma once

#include "importscope/util/json_fields.hpp"
#include "importscope/util/process_facts.hpp"

#include <string>
#include <vector>

namespace importscope::report {

/// What `importscope run` found, for its exit status: one decision, made in one place.
struct OutcomeInputs {
    std::vector<std::string> tool_failures; ///< what kept importscope from doing its job
    std::size_t selected_findings = 0;      ///< findings that --fail-on selects
    ProcessExit target;                     ///< how the main process ended
    RunStop stop;                           ///< what importscope did that ended it
    bool ignore_target_status = false;      ///< --ignore-target-status: the gate looks at findings only
    /// The program could not be executed: its status (126 or 127, as a shell's) is importscope's.
    bool not_executed = false;
};

/// The exit status and the one line that says why (docs/ci-gate.md, "Exit status").
struct Outcome {
    int status = 0;
    std::string reason;  ///< "ok", "findings", "tool-failure", "timed-out", "not-executed", "target-failed"
    std::string message; ///< e.g. "the target exited with status 1, with no finding that --fail-on selects"
    std::vector<std::string> failures; ///< OutcomeInputs::tool_failures

    /// Its form in a report's run.outcome (json_fields.hpp).
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("exit_status", e.status);
        f.field("reason", e.reason);
        f.field("message", e.message);
        f.field("failures", e.failures);
    }
};

/// In order: findings (3); importscope's own failure (125); --timeout (124); a program that could
/// not be executed (126, 127); the target's failure passed on, its exit status or 128+N for signal
/// N, as shells report it (128+N too when importscope passed on signal N and the target still
/// exited 0), but an exit status of 124-127, importscope's own, becomes 1; else 0.
Outcome decide_outcome(const OutcomeInputs& inputs);

using json_fields::from_json;
using json_fields::to_json;

} // namespace importscope::report
