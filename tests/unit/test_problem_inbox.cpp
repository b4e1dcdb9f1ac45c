// The problem inbox: what the traced processes send when they cannot journal, kept up to a bound,
// and every datagram counted, so that the supervisor knows a flood is still coming.

#include "importscope/journal/problem_channel.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace importscope;

TEST_CASE("the problem inbox keeps the first messages, drops the rest, and counts every datagram it read", "[problems]")
{
    journal::ProblemInbox inbox;
    std::size_t kept = 0;
    // A few at a time: the kernel queues only max_dgram_qlen datagrams (10 by default) for a reader.
    for (std::size_t round = 1; round <= 12; ++round) {
        for (int i = 0; i < 10; ++i)
            REQUIRE(journal::send_problem(inbox.address().c_str(), "cannot journal"));
        kept += inbox.take().size();
        CHECK(inbox.received() == round * 10); // past the kept ones too: the senders are still at it
    }
    CHECK(kept == journal::ProblemInbox::k_problems_kept);
    CHECK(inbox.dropped().starts_with("20 more problem messages"));
    CHECK(inbox.take().empty());
    CHECK(inbox.received() == 120); // a take() that finds nothing leaves it as it was
}
