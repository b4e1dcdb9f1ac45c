#pragma once

#include <stdexcept>
#include <string>

namespace importscope {

/// Documented exit statuses of the importscope command (README.md, docs/ci-gate.md). `run` passes
/// the target's own failure through (its exit status, or 128+N for signal N) when there is no
/// finding; the statuses of its own are those below, chosen as `timeout` and `env` choose theirs.
enum class ExitStatus : int {
    ok = 0,
    new_findings = 1,    ///< diff: NEW has a finding that OLD did not
    static_findings = 1, ///< scan: at least one finding that --fail-on selects
    skipped_records = 1, ///< journal dump: damaged records were skipped (named on stderr)
    usage = 2,           ///< report, diff, merge: bad usage or input; nothing was written
    findings = 3,        ///< run: at least one finding that --fail-on selects
    timed_out = 124,     ///< run: --timeout ended the target, which gave no finding
    tool_failure = 125,  ///< run: importscope could not do its job (usage, set-up, hooks, journals, report)
    cannot_execute = 126, ///< run: the command was found but cannot be run
    not_found = 127,     ///< run: no such command or script
};

/// A user-facing failure: the message is printed as "importscope: error: <message>" and the process
/// exits with `status`. Thrown anywhere, caught once in run_cli().
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message, ExitStatus status = ExitStatus::usage)
        : std::runtime_error(message), m_status(status)
    {
    }

    ExitStatus status() const noexcept { return m_status; }

private:
    ExitStatus m_status;
};

/// An operating-system call failed; the message names the call's subject and strerror(errno).
Error system_error(const std::string& what, int err);

} // namespace importscope
