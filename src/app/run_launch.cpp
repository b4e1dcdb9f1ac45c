#include "importscope/app/run_stages.hpp"

#include "importscope/supervisor/worker_launch.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <sys/resource.h>

namespace importscope::app {

/// The worker's own journal goes to memory shared with it; where that cannot be had, or where the
/// target's address space is limited (the shared memory takes 1 GiB of it, if little of the
/// memory), to a file.
std::unique_ptr<journal::SharedJournal> make_shared_journal()
{
    rlimit address_space{};
    if (::getrlimit(RLIMIT_AS, &address_space) != 0 || address_space.rlim_cur != RLIM_INFINITY)
        return nullptr;
    try {
        return std::make_unique<journal::SharedJournal>();
    } catch (const Error&) {
        return nullptr;
    }
}

bool RunActivity::busy(std::uint64_t journal_bytes, std::size_t datagrams)
{
    const bool busy = journal_bytes != m_journal_bytes || datagrams != m_datagrams;
    m_journal_bytes = journal_bytes;
    m_datagrams = datagrams;
    return busy;
}

Launched launch(const RunRequest& request, const embed::WorkerPlan& plan, journal::ProblemInbox& inbox,
                LiveView& live, const std::function<std::set<int>()>& after_start,
                const std::function<void()>& polled)
{
    supervisor::SuperviseOptions supervise_options;
    supervise_options.after_start = after_start;
    if (request.options.timeout_given)
        supervise_options.timeout_s = request.options.timeout_s;
    // The journals are read as they grow, whether or not a status line shows them, and often: what
    // is left to read when the target ends is what it wrote since the last tick. While they gain
    // nothing (a server between requests), the ticks slow down to idle_tick_s.
    supervise_options.tick_s = 0.02;
    supervise_options.idle_tick_s = 0.1;
    Launched launched;
    auto take_inbox = [&] {
        auto messages = inbox.take();
        launched.inbox.insert(launched.inbox.end(), messages.begin(), messages.end());
    };
    RunActivity activity;
    supervise_options.on_tick = [&] {
        take_inbox();
        const bool error_found = live.update();
        if (polled)
            polled();
        return supervisor::Tick{error_found && request.options.stop_on_finding,
                                activity.busy(live.journal_bytes_read(), inbox.received())};
    };
    launched.started_ns = wall_ns();
    launched.end = supervisor::supervise(
        [&](int start_fd) {
            inbox.close_in_forked_child();
            supervisor::launch_worker(plan, request.runtime, start_fd);
        },
        supervise_options);
    launched.ended_ns = wall_ns();
    take_inbox();
    if (std::string dropped = inbox.dropped(); !dropped.empty())
        launched.inbox.push_back(std::move(dropped));
    launched.inbox_refused = inbox.refused();
    return launched;
}

namespace {

/// importscope (its timeout, --stop-on-finding) or its user (a signal it passed on) ended the run.
bool ended_by_request(const RunStop& stop)
{
    return stop.timed_out || stop.forwarded_signal || stop.stopped_on_finding;
}

bool start_failed(const std::string& words)
{
    return !words.empty() && words[0] == embed::start_word::failed;
}

std::string failed_start_message(const std::string& words)
{
    return words.size() > 1 ? words.substr(1) : "the worker could not start the target";
}

} // namespace

std::string start_failure(const std::string& words, const ProcessExit& exit, const RunStop& stop, bool program)
{
    if (!words.empty() && (words[0] == embed::start_word::ready || words[0] == embed::start_word::exited))
        return {};
    if (program && words.starts_with(embed::start_word::exec))
        return {}; // executed, or not executable (126, 127), as a shell would say
    if (ended_by_request(stop))
        return {}; // ended by importscope (or its user) before the target started: a Ctrl-C in site
    if (start_failed(words))
        return failed_start_message(words);
    return fmt::format("the worker {} before {}", report::describe_exit(exit, stop),
                       program ? "it executed the program" : "the interpreter was ready to run the target");
}

std::string interrupted_start(const std::string& words, const RunStop& stop)
{
    if (!ended_by_request(stop) || !start_failed(words))
        return {};
    return fmt::format("the run was ended during the interpreter's start-up, which then failed: {}",
                       failed_start_message(words));
}

bool program_not_executed(const std::string& start_words)
{
    return start_words.size() > 1 && start_words[0] == embed::start_word::exec &&
           start_words[1] == embed::start_word::failed;
}

} // namespace importscope::app
