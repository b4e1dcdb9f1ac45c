#include "importscope/app/run_stages.hpp"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>

namespace importscope::app {

void record_ends(report::RunInfo& info, const Launched& launched, const analysis::RunModel& model)
{
    const supervisor::SupervisedRun& end = launched.end;
    info.started_ns = launched.started_ns;
    info.ended_ns = launched.ended_ns;
    info.main_pid = end.pid;
    info.exit = end.exit;
    info.stop = end.stop;
    info.seen_ends = end.reaped;
    // What outlived the run, even outside its process group or session, importscope ended.
    for (int pid : end.ended_by_importscope) {
        const auto [it, unreaped] = info.seen_ends.try_emplace(pid);
        if (unreaped)
            it->second.signal = SIGKILL;
        it->second.how = ExitKnownBy::killed;
    }
    for (const auto& p : model.processes)
        if (p.pid == end.pid && info.python_version.empty())
            info.python_version = p.python_version;
}

std::vector<std::string> tool_failures(const Launched& launched, const report::RunInfo& info, bool program,
                                       const supervisor::RunDir& run_dir, const journal::SharedJournal* shared)
{
    std::vector<std::string> failures;
    if (std::string failure =
            start_failure(launched.end.start_words, info.exit, info.stop, program);
        !failure.empty())
        failures.push_back(std::move(failure));
    failures.insert(failures.end(), launched.inbox.begin(), launched.inbox.end());
    if (shared && shared->overflowed())
        failures.emplace_back("the main process's journal filled up; its later events are lost");
    std::error_code ec;
    if (!std::filesystem::is_directory(run_dir.path(), ec))
        failures.push_back(fmt::format("the run directory {} was removed while the target ran; the children's "
                                       "journals are lost",
                                       run_dir.path().string()));
    return failures;
}

std::vector<std::string> supervision_notes(const Launched& launched, const report::RunInfo& info)
{
    std::vector<std::string> notes;
    if (!launched.inbox_refused.empty())
        notes.push_back(launched.inbox_refused);
    if (std::string note = interrupted_start(launched.end.start_words, info.stop); !note.empty())
        notes.push_back(std::move(note));
    for (const supervisor::GuardianEnd& guardian : launched.end.guardian_ends) {
        const std::string ended = report::describe_exit(guardian.exit);
        notes.push_back(guardian.replaced_by > 0
                            ? fmt::format("importscope's guardian (pid {}), which ends the tree if importscope dies, {} "
                                          "while the run went on, killed by the target most likely; pid {} took its "
                                          "place",
                                          guardian.pid, ended, guardian.replaced_by)
                            : fmt::format("importscope's guardian (pid {}), which ends the tree if importscope dies, {} "
                                          "while the run went on and none could take its place: had importscope been "
                                          "killed, the tree could have outlived it",
                                          guardian.pid, ended));
    }
    return notes;
}

} // namespace importscope::app
