// The run's process tree as /proc shows it: what the supervisor ends at a run's end and tells the
// guardian while it runs.

#include "importscope/supervisor/process_tree.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <sched.h>

using namespace importscope;

namespace {

/// A child that sleeps until killed, after forking one of its own (the grandchild) when asked.
int sleeping_child(bool with_grandchild, int ready_fd)
{
    const int pid = ::fork();
    if (pid != 0)
        return pid;
    if (with_grandchild && ::fork() == 0) {
        (void)::write(ready_fd, "g", 1);
        ::pause();
        ::_exit(0);
    }
    (void)::write(ready_fd, "c", 1);
    ::pause();
    ::_exit(0);
}

void wait_for_bytes(int fd, int count)
{
    char byte = 0;
    for (int i = 0; i < count; ++i)
        REQUIRE(::read(fd, &byte, 1) == 1);
}

} // namespace

TEST_CASE("descendants: children and grandchildren, parents first, without zombies or the excluded",
          "[process-tree]")
{
    // As the supervisor is: the orphans of the tree come to this process, which reaps them all.
    REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const int parent = sleeping_child(true, ready[1]);
    const int excluded = sleeping_child(true, ready[1]);
    const int zombie = ::fork();
    if (zombie == 0)
        ::_exit(0);
    wait_for_bytes(ready[0], 4);
    // The zombie is a zombie once it is gone from running: wait until waitid says it has exited.
    siginfo_t info{};
    REQUIRE(::waitid(P_PID, static_cast<id_t>(zombie), &info, WEXITED | WNOWAIT) == 0);

    const std::vector<int> found = supervisor::descendants_of(static_cast<int>(::getpid()), {excluded});
    REQUIRE(found.size() == 2); // the parent and its child; neither the zombie nor the excluded tree
    CHECK(found[0] == parent);
    CHECK(found[1] != parent);
    CHECK(std::find(found.begin(), found.end(), zombie) == found.end());
    CHECK(std::find(found.begin(), found.end(), excluded) == found.end());

    const std::vector<int> below_parent = supervisor::descendants_of(parent);
    CHECK(below_parent == std::vector<int>{found[1]});
    CHECK(supervisor::descendants_of(found[1]).empty());

    const std::vector<int> all = supervisor::descendants_of(static_cast<int>(::getpid()));
    CHECK(all.size() == 4); // with the excluded child and its own
    for (auto it = all.rbegin(); it != all.rend(); ++it) // children first: none is left orphaned
        ::kill(*it, SIGKILL);
    for (std::size_t reaped = 0; reaped < all.size() + 1;) // the four and the zombie
        if (::waitpid(-1, nullptr, 0) > 0)
            ++reaped;
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    ::close(ready[0]);
    ::close(ready[1]);
}

namespace {

/// The body of a clone that shares this process's memory, as a vfork child before its exec or
/// LeakSanitizer's tracer does: it says it is there, then waits to be killed.
int memory_sharing_child(void* ready_fd)
{
    (void)::write(*static_cast<int*>(ready_fd), "v", 1);
    for (;;)
        ::pause();
}

} // namespace

TEST_CASE("a child in its parent's memory is told apart from a forked one", "[process-tree]")
{
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const int forked = sleeping_child(false, ready[1]);
    alignas(16) static std::array<char, std::size_t{64} * 1024> stack{};
    const int shared = ::clone(memory_sharing_child, stack.data() + stack.size(), CLONE_VM | SIGCHLD, &ready[1]);
    REQUIRE(shared > 0);
    wait_for_bytes(ready[0], 2);
    CHECK(supervisor::shares_parent_memory(shared));
    CHECK_FALSE(supervisor::shares_parent_memory(forked));
    CHECK_FALSE(supervisor::shares_parent_memory(static_cast<int>(::getpid()) + 1'000'000)); // no such process
    for (const int pid : {forked, shared}) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
    ::close(ready[0]);
    ::close(ready[1]);
}
