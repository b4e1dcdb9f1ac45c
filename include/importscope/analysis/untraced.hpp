#pragma once

#include "importscope/analysis/model.hpp"
#include "importscope/util/json_fields.hpp"
#include "importscope/util/process_facts.hpp"

#include <optional>
#include <string>
#include <vector>

namespace importscope::analysis {

/// A Python process that a traced process started and that never journaled: what importscope
/// could not see, and why.
struct UntracedProcess {
    int parent_pid = 0;            ///< the traced process that started it
    std::string via;               ///< "subprocess.Popen", "os.exec", ...
    std::string executable;
    std::vector<std::string> argv;
    std::string reason; ///< why it was not traced, as far as its command line and environment tell
    std::string advice; ///< what to do to trace it

    /// Its form in a report's "untraced" (json_fields.hpp).
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("parent_pid", e.parent_pid);
        f.field("via", e.via);
        f.field("executable", e.executable);
        f.field("argv", e.argv);
        f.field("reason", e.reason);
        f.field("advice", e.advice);
    }
};

using json_fields::from_json;
using json_fields::to_json;

/// The programs traced processes started that are Python interpreters (by file name, or the
/// starter's own sys.executable) and that no traced process matches (the same argv, started by
/// that parent or, for exec, in its place); then the Python programs seen running that no traced
/// process is (started by a shell wrapper, say, or exec'd by one that a traced process exec'd).
/// `traced_minors` are the CPython 3 minors importscope has hooks for.
std::vector<UntracedProcess> find_untraced(const RunModel& model, const std::vector<int>& traced_minors,
                                           const std::vector<ObservedPython>& observed = {});

} // namespace importscope::analysis
