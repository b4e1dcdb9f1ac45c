#include "importscope/report/outcome.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

namespace importscope::report {

namespace {

/// The status a shell would give for the target's end, with its phrase; 0 for a success.
std::pair<int, std::string> target_status(const ExitInfo& exit)
{
    if (exit.signal)
        return {128 + *exit.signal, fmt::format("the target was killed by {}", signal_name(*exit.signal))};
    const int code = exit.code.value_or(0);
    if (code != 0)
        return {code, fmt::format("the target exited with status {}", code)};
    if (exit.forwarded_signal)
        return {128 + *exit.forwarded_signal,
                fmt::format("importscope passed on {} and the target ended", signal_name(*exit.forwarded_signal))};
    return {0, ""};
}

Outcome decide_status(const OutcomeInputs& inputs);

} // namespace

Outcome decide_outcome(const OutcomeInputs& inputs)
{
    Outcome outcome = decide_status(inputs);
    outcome.failures = inputs.tool_failures;
    return outcome;
}

namespace {

Outcome outcome_of(int status, std::string reason, std::string message)
{
    Outcome outcome;
    outcome.status = status;
    outcome.reason = std::move(reason);
    outcome.message = std::move(message);
    return outcome;
}

Outcome decide_status(const OutcomeInputs& inputs)
{
    if (inputs.selected_findings > 0)
        return outcome_of(static_cast<int>(ExitStatus::findings), "findings",
                          fmt::format("{} finding{} that --fail-on selects", inputs.selected_findings,
                                      inputs.selected_findings == 1 ? "" : "s"));
    if (!inputs.tool_failures.empty())
        return outcome_of(static_cast<int>(ExitStatus::tool_failure), "tool-failure",
                          fmt::format("importscope could not do its job: {}", inputs.tool_failures.front()));
    if (inputs.ignore_target_status)
        return outcome_of(0, "ok", "no finding that --fail-on selects (the target's own status is ignored)");
    if (inputs.target.timed_out)
        return outcome_of(static_cast<int>(ExitStatus::timed_out), "timed-out",
                          "the target ran past --timeout, with no finding that --fail-on selects");
    if (const auto [status, phrase] = target_status(inputs.target); status != 0)
        return outcome_of(status, "target-failed", fmt::format("{}, with no finding that --fail-on selects", phrase));
    return outcome_of(0, "ok", "the target succeeded, with no finding that --fail-on selects");
}

} // namespace

} // namespace importscope::report
