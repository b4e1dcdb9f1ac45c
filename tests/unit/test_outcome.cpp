#include "importscope/report/outcome.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <csignal>

using importscope::report::decide_outcome;
using importscope::ProcessExit;
using importscope::RunStop;
using importscope::report::OutcomeInputs;

namespace {

ProcessExit exited(int code)
{
    ProcessExit exit;
    exit.code = code;
    return exit;
}

ProcessExit killed(int signal)
{
    ProcessExit exit;
    exit.signal = signal;
    return exit;
}

} // namespace

TEST_CASE("0 only when the target succeeded and nothing was found", "[outcome]")
{
    CHECK(decide_outcome({{}, 0, exited(0), {}, false}).status == 0);
    CHECK(decide_outcome({{}, 0, exited(0), {}, false}).reason == "ok");
}

TEST_CASE("the target's own failure is passed on as a shell reports it", "[outcome]")
{
    CHECK(decide_outcome({{}, 0, exited(1), {}, false}).status == 1);
    CHECK(decide_outcome({{}, 0, exited(5), {}, false}).status == 5);
    CHECK(decide_outcome({{}, 0, killed(SIGABRT), {}, false}).status == 128 + SIGABRT);
    const auto outcome = decide_outcome({{}, 0, killed(SIGSEGV), {}, false});
    CHECK(outcome.reason == "target-failed");
    CHECK(outcome.message == "the target was killed by SIGSEGV, with no finding that --fail-on selects");
}

TEST_CASE("a passed-on signal is a failure even if the target then exits 0", "[outcome]")
{
    RunStop forwarded;
    forwarded.forwarded_signal = SIGTERM;
    CHECK(decide_outcome({{}, 0, exited(0), forwarded, false}).status == 128 + SIGTERM);
}

TEST_CASE("findings come first, then importscope's failures, then the timeout", "[outcome]")
{
    RunStop timed_out;
    timed_out.timed_out = true;
    CHECK(decide_outcome({{"journal lost"}, 2, killed(SIGINT), timed_out, false}).status == 3);
    const auto failure = decide_outcome({{"journal lost"}, 0, killed(SIGINT), timed_out, false});
    CHECK(failure.status == 125);
    CHECK(failure.failures == std::vector<std::string>{"journal lost"});
    CHECK(failure.message == "importscope could not do its job: journal lost");
    CHECK(decide_outcome({{}, 0, killed(SIGINT), timed_out, false}).status == 124);
}

TEST_CASE("ignoring the target's status looks at findings and importscope's failures only", "[outcome]")
{
    CHECK(decide_outcome({{}, 0, exited(1), {}, true}).status == 0);
    CHECK(decide_outcome({{}, 1, exited(1), {}, true}).status == 3);
    CHECK(decide_outcome({{"no handshake"}, 0, exited(1), {}, true}).status == 125);
}

TEST_CASE("a target's own 124-127 is passed on as 1: those are importscope's", "[outcome]")
{
    for (const int code : {124, 125, 126, 127}) {
        const auto outcome = decide_outcome({{}, 0, exited(code), {}, false});
        CHECK(outcome.status == 1);
        CHECK(outcome.reason == "target-failed");
        CHECK(outcome.message == fmt::format("the target exited with status {} (passed on as 1: importscope keeps "
                                             "124-127 for itself), with no finding that --fail-on selects",
                                             code));
    }
    CHECK(decide_outcome({{}, 0, exited(123), {}, false}).status == 123);
    CHECK(decide_outcome({{}, 0, exited(128), {}, false}).status == 128);
}

TEST_CASE("a program that could not be executed keeps 126 or 127, even with --ignore-target-status", "[outcome]")
{
    for (const bool ignore : {false, true}) {
        const auto missing = decide_outcome({{}, 0, exited(127), {}, ignore, true});
        CHECK(missing.status == 127);
        CHECK(missing.reason == "not-executed");
        CHECK(decide_outcome({{}, 0, exited(126), {}, ignore, true}).status == 126);
    }
    CHECK(decide_outcome({{}, 1, exited(127), {}, false, true}).status == 3);
}
