#pragma once

#include "importscope/util/process_facts.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

/// The processes of a run's tree as /proc shows them. importscope is the child subreaper of the
/// tree, so while it lives every descendant, even one that left the process group or the session
/// (setsid, start_new_session=True) and whose parent died, is its descendant by parent links.
/// Here too: ProgramWatch, the Python programs and task launchers seen running in the tree, and the
/// Guardian, which ends the tree if importscope itself dies.
namespace importscope::supervisor {

/// Every living descendant of `root` (not `root` itself), parents before their children; those in
/// `excluded`, and their descendants, are left out.
std::vector<int> descendants_of(int root, const std::set<int>& excluded = {});

/// Ends every descendant of this process but `excluded`: SIGKILL, again for those that were being
/// born, until none is left or a second has passed. Returns the pids it signalled.
std::vector<int> kill_descendants(const std::set<int>& excluded);

/// Whether `pid` runs in the address space of its parent (kcmp's KCMP_VM): no program of its own
/// yet, but a vfork child before its exec (as subprocess starts children) or a sanitizer's tracer
/// (LeakSanitizer's, at a process's exit). False when it cannot be told.
bool shares_parent_memory(int pid);

/// Describes `pid` when its executable's file name starts with "python" and it does not share its
/// parent's memory (shares_parent_memory); nullopt otherwise or when it is gone.
std::optional<ObservedPython> describe_if_python(int pid);

/// Describes `pid` when its executable's file name is a task launcher's (mpirun's is orterun's or
/// prterun's, mpiexec's mpiexec.hydra's); nullopt otherwise or when it is gone.
std::optional<ObservedLauncher> describe_if_launcher(int pid);

/// Keeps the Python processes and the task launchers seen among the descendants, looking again at
/// a pid that exec'd another program (a shell that exec'd Python, a Python that exec'd Python
/// again, the worker that exec'd srun): one ObservedPython for each Python program a pid was seen to
/// run, in the order seen.
class ProgramWatch {
public:
    void look(const std::vector<int>& descendants);
    std::vector<ObservedPython> pythons() const;
    std::vector<ObservedLauncher> launchers() const;

private:
    std::map<int, std::string> m_images; ///< each pid's program as last seen (image_of)
    std::vector<ObservedPython> m_pythons;
    std::map<int, ObservedLauncher> m_launchers;
};

/// The guardian: a small process, forked before the worker, that ends the whole tree if importscope
/// itself dies without ending it (SIGKILL, say), when nothing of importscope is left to do it.
/// It learns the tree's pids as the supervisor learns them, through a pipe whose end of file is
/// the supervisor's death; "done" on that pipe lets it go without killing anything. It is a child
/// of importscope, and so a sibling the target can see and kill: the supervisor, which reaps it,
/// then starts another (`replace`) and tells it all the old one knew.
class Guardian {
public:
    Guardian();
    ~Guardian();
    Guardian(const Guardian&) = delete;
    Guardian& operator=(const Guardian&) = delete;

    int pid() const { return m_pid; }
    /// The write end, which a forked worker must close.
    int fd() const { return m_fd; }
    /// Tells it a process of the tree (and the process group of the worker, for `group`).
    void watch(int pid, bool group = false);
    /// The guardian died (reaped by the supervisor) before its release: a new one takes its place,
    /// told every process the old one was. Returns the new one's pid, or -1 when none could be made
    /// or the guardian was released already.
    int replace();
    /// The tree has been ended, or ended by itself: the guardian leaves it alone and exits.
    void release();

private:
    void start();

    int m_pid = -1;
    int m_fd = -1;
    bool m_released = false;
    std::set<int> m_told;
};

} // namespace importscope::supervisor
