#include "importscope/report/outcome.hpp"

#include <catch2/catch.hpp>

#include <csignal>

using importscope::report::decide_outcome;
using importscope::report::ExitInfo;
using importscope::report::OutcomeInputs;

namespace {

ExitInfo exited(int code)
{
    ExitInfo exit;
    exit.code = code;
    return exit;
}

ExitInfo killed(int signal)
{
    ExitInfo exit;
    exit.signal = signal;
    return exit;
}

} // namespace

TEST_CASE("0 only when the target succeeded and nothing was found", "[outcome]")
{
    CHECK(decide_outcome({{}, 0, exited(0), false}).status == 0);
    CHECK(decide_outcome({{}, 0, exited(0), false}).reason == "ok");
}

TEST_CASE("the target's own failure is passed on as a shell reports it", "[outcome]")
{
    CHECK(decide_outcome({{}, 0, exited(1), false}).status == 1);
    CHECK(decide_outcome({{}, 0, exited(5), false}).status == 5);
    CHECK(decide_outcome({{}, 0, killed(SIGABRT), false}).status == 128 + SIGABRT);
    const auto outcome = decide_outcome({{}, 0, killed(SIGSEGV), false});
    CHECK(outcome.reason == "target-failed");
    CHECK(outcome.message == "the target was killed by SIGSEGV, with no finding that --fail-on selects");
}

TEST_CASE("a passed-on signal is a failure even if the target then exits 0", "[outcome]")
{
    ExitInfo exit = exited(0);
    exit.forwarded_signal = SIGTERM;
    CHECK(decide_outcome({{}, 0, exit, false}).status == 128 + SIGTERM);
}

TEST_CASE("findings come first, then importscope's failures, then the timeout", "[outcome]")
{
    ExitInfo timed_out = killed(SIGINT);
    timed_out.timed_out = true;
    CHECK(decide_outcome({{"journal lost"}, 2, timed_out, false}).status == 3);
    const auto failure = decide_outcome({{"journal lost"}, 0, timed_out, false});
    CHECK(failure.status == 125);
    CHECK(failure.failures == std::vector<std::string>{"journal lost"});
    CHECK(failure.message == "importscope could not do its job: journal lost");
    CHECK(decide_outcome({{}, 0, timed_out, false}).status == 124);
}

TEST_CASE("ignoring the target's status looks at findings and importscope's failures only", "[outcome]")
{
    CHECK(decide_outcome({{}, 0, exited(1), true}).status == 0);
    CHECK(decide_outcome({{}, 1, exited(1), true}).status == 3);
    CHECK(decide_outcome({{"no handshake"}, 0, exited(1), true}).status == 125);
}
