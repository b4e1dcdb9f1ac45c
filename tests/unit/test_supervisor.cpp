// The supervisor's order of work: what runs after the main process is started, and the helpers it
// starts there, which are not part of the target's tree.

#include "importscope/supervisor/signals.hpp"
#include "importscope/supervisor/supervisor.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

using namespace importscope;

TEST_CASE("after_start runs once the main process is started; the helper it starts is left alone",
          "[supervisor]")
{
    int started[2];
    REQUIRE(::pipe(started) == 0);
    int helper = -1;
    bool main_was_running = false;
    supervisor::SuperviseOptions options;
    options.linger_s = 0.1;
    options.after_start = [&] {
        char byte = 0;
        main_was_running = ::read(started[0], &byte, 1) == 1; // the main process wrote it
        helper = ::fork();
        if (helper == 0) {
            ::pause();
            ::_exit(0);
        }
        return std::set<int>{helper};
    };
    const supervisor::SupervisedRun end = supervisor::supervise(
        [&](int /*start_fd*/) {
            (void)::write(started[1], "s", 1);
            ::_exit(7);
        },
        options);
    ::close(started[0]);
    ::close(started[1]);

    CHECK(main_was_running);
    CHECK(end.exit.code == 7);
    REQUIRE(helper > 0);
    CHECK(std::find(end.ended_by_importscope.begin(), end.ended_by_importscope.end(), helper) ==
          end.ended_by_importscope.end());
    CHECK(end.reaped.count(helper) == 0);
    CHECK(::kill(helper, 0) == 0); // still running: the run's end did not end it
    ::kill(helper, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(helper, &status, 0) == helper);
    CHECK(WIFSIGNALED(status));
}

TEST_CASE("the wind-down wakes when a child ends, not at the end of its wait", "[supervisor]")
{
    const supervisor::HeldSignals held; // SIGCHLD is held while the supervisor waits for it
    const pid_t child = ::fork();
    if (child == 0)
        ::_exit(0);
    const auto before = std::chrono::steady_clock::now();
    supervisor::await_child_end(5'000'000'000);
    const auto waited = std::chrono::steady_clock::now() - before;
    CHECK(waited < std::chrono::seconds(2));
    int status = 0;
    CHECK(::waitpid(child, &status, 0) == child);

    // With no child of its own to end, it is back by its time (or earlier, when a process that
    // another test left behind ends meanwhile).
    const auto idle_before = std::chrono::steady_clock::now();
    supervisor::await_child_end(20'000'000);
    CHECK(std::chrono::steady_clock::now() - idle_before < std::chrono::seconds(2));
}

namespace {

/// The times of the ticks of a run whose main process sleeps `run_s`, with the ticks busy from
/// `busy_from_s` on (never when negative), in seconds from the first tick's call.
std::vector<double> tick_times(double run_s, double busy_from_s)
{
    using Clock = std::chrono::steady_clock;
    const auto started = Clock::now();
    std::vector<double> times;
    supervisor::SuperviseOptions options;
    options.linger_s = 0.1;
    options.tick_s = 0.01;
    options.idle_tick_s = 0.08;
    options.on_tick = [&] {
        const double at = std::chrono::duration<double>(Clock::now() - started).count();
        times.push_back(at);
        return supervisor::Tick{false, busy_from_s >= 0 && at >= busy_from_s};
    };
    const supervisor::SupervisedRun end = supervisor::supervise(
        [&](int /*start_fd*/) {
            ::usleep(static_cast<useconds_t>(run_s * 1e6));
            ::_exit(0);
        },
        options);
    CHECK(end.exit.code == 0);
    return times;
}

} // namespace

TEST_CASE("the ticks slow down to idle_tick_s while they find nothing to do, as a server idles", "[supervisor]")
{
    const std::vector<double> times = tick_times(0.6, -1);
    // 10, 20, 40, then 80 ms apart: about 9 ticks in 0.6 s, where tick_s alone would make 60.
    REQUIRE(times.size() >= 4);
    CHECK(times.size() <= 15);
    for (std::size_t i = 1; i < times.size(); ++i)
        CHECK(times[i] - times[i - 1] >= 0.009);
    CHECK(times.back() - times[times.size() - 2] >= 0.075);
}

TEST_CASE("a busy tick brings the next one back to tick_s", "[supervisor]")
{
    const std::vector<double> times = tick_times(0.7, 0.3);
    // Idle until 0.3 s (80 ms apart by then), busy after: 10 ms apart for the last 0.4 s, about
    // 40 ticks; idle ticks would be 5.
    const auto busy = std::count_if(times.begin(), times.end(), [](double at) { return at >= 0.3; });
    CHECK(busy > 12);
    const auto idle = std::count_if(times.begin(), times.end(), [](double at) { return at < 0.3; });
    CHECK(idle <= 10);
}
