#pragma once

#include <stdexcept>
#include <string>

namespace importscope {

/// Documented exit statuses of the importscope command (see docs/exit-status.md).
enum class ExitStatus : int {
    ok = 0,       ///< run: no finding of severity error
    findings = 1, ///< run: at least one finding of severity error
    usage = 2,    ///< bad input or set-up error; the target was not run
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
