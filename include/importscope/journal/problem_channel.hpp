#pragma once

#include <string>
#include <vector>

/// How a traced process tells the supervisor that it cannot journal (the run directory is full,
/// deleted, out of descriptors): a datagram to a socket in Linux's abstract namespace, which needs
/// no file, no disk space and no descriptor inherited from the supervisor.
namespace importscope::journal {

/// The supervisor's end: made before the target starts, read while it runs and after.
class ProblemInbox {
public:
    /// Binds a new abstract socket; throws Error when it cannot.
    ProblemInbox();
    ~ProblemInbox();
    ProblemInbox(const ProblemInbox&) = delete;
    ProblemInbox& operator=(const ProblemInbox&) = delete;

    /// The address to hand to traced processes (IMPORTSCOPE_PROBLEMS).
    const std::string& address() const { return m_address; }

    /// Every message received so far and not taken yet, in arrival order.
    std::vector<std::string> take();

private:
    int m_fd = -1;
    std::string m_address;
};

/// Sends `text` to the inbox at `address`; async-signal-safe, never fails loudly (false if it
/// could not be sent).
bool send_problem(const char* address, const char* text) noexcept;

} // namespace importscope::journal
