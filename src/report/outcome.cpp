#include "importscope/report/outcome.hpp"

#include "importscope/report/report.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

namespace importscope::report {

namespace {

/// importscope's own statuses (--timeout, its failure, a command it could not run or find): a
/// target's exit with one of them is passed on as this one, and its true code is in the message.
constexpr int k_reserved_low = static_cast<int>(ExitStatus::timed_out);
constexpr int k_reserved_high = static_cast<int>(ExitStatus::not_found);
constexpr int k_reserved_stand_in = 1;

/// The status a shell would give for the target's end, with its phrase; 0 for a success.
std::pair<int, std::string> target_status(const ProcessExit& exit, const RunStop& stop)
{
    if (exit.signal)
        return {128 + *exit.signal, fmt::format("the target was killed by {}", signal_name(*exit.signal))};
    const int code = exit.code.value_or(0);
    if (code >= k_reserved_low && code <= k_reserved_high)
        return {k_reserved_stand_in,
                fmt::format("the target exited with status {} (passed on as {}: importscope keeps {}-{} for itself)",
                            code, k_reserved_stand_in, k_reserved_low, k_reserved_high)};
    if (code != 0)
        return {code, fmt::format("the target exited with status {}", code)};
    if (stop.forwarded_signal)
        return {128 + *stop.forwarded_signal,
                fmt::format("importscope passed on {} and the target ended", signal_name(*stop.forwarded_signal))};
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
    if (inputs.not_executed) // the status is the one exec_program's failure gave, as a shell's
        return outcome_of(inputs.target.code.value_or(static_cast<int>(ExitStatus::cannot_execute)), "not-executed",
                          "importscope could not execute the program, with no finding that --fail-on selects");
    if (inputs.ignore_target_status)
        return outcome_of(0, "ok", "no finding that --fail-on selects (the target's own status is ignored)");
    if (inputs.stop.timed_out)
        return outcome_of(static_cast<int>(ExitStatus::timed_out), "timed-out",
                          "the target ran past --timeout, with no finding that --fail-on selects");
    if (const auto [status, phrase] = target_status(inputs.target, inputs.stop); status != 0)
        return outcome_of(status, "target-failed", fmt::format("{}, with no finding that --fail-on selects", phrase));
    return outcome_of(0, "ok", "the target succeeded, with no finding that --fail-on selects");
}

} // namespace

} // namespace importscope::report
