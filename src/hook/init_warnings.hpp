#pragma once

#include "capi/py_ref.hpp"

#include <string>
#include <vector>

namespace importscope::hook {

/// The warnings an extension's init issues (nanobind's "type 'Runtime' was already registered!"),
/// recorded as the target's own filters let them through and then shown as they would have been:
/// warnings.catch_warnings(record=True) around the init, each recorded warning given to
/// warnings._showwarnmsg afterwards. A filter that turns the warning into an error still raises it
/// inside the init; one that ignores it leaves nothing to record.
class InitWarnings {
public:
    InitWarnings();
    ~InitWarnings();
    InitWarnings(const InitWarnings&) = delete;
    InitWarnings& operator=(const InitWarnings&) = delete;

    /// Stops recording, shows what was recorded and appends it to `out` as "<category>: <message>".
    /// Any exception being raised is kept as it is.
    void finish(std::vector<std::string>& out);

private:
    capi::PyRef m_warnings; ///< the warnings module
    capi::PyRef m_context;  ///< the catch_warnings object, entered
    capi::PyRef m_log;      ///< the list it records into
};

} // namespace importscope::hook
