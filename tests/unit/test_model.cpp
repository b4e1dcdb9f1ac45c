#include "journal_builder.hpp"

#include "importscope/analysis/model.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

using namespace importscope;
using analysis::ImportStatus;

TEST_CASE("begin and end pair into one record with outcome and duration", "[model]")
{
    testing::JournalBuilder b;
    const auto outer = b.begin("pkg", "source", "/site/pkg/__init__.py");
    const auto inner = b.begin("pkg.mod", "source", "/site/pkg/mod.py");
    b.end(inner, journal::ExceptionInfo{"ValueError", "bad", ""});
    b.end(outer);

    const auto model = analysis::build_model(b.contents());
    REQUIRE(model.processes.size() == 1);
    REQUIRE(model.modules.size() == 2);
    CHECK(model.modules[0].name == "pkg");
    CHECK(model.modules[0].status == ImportStatus::ok);
    CHECK(model.modules[1].status == ImportStatus::error);
    REQUIRE(model.modules[1].error);
    CHECK(model.modules[1].error->message == "bad");
    REQUIRE(model.modules[0].duration_ms);
    CHECK(*model.modules[0].duration_ms > 0);
    CHECK(model.problems.empty());
}

TEST_CASE("a damaged journal's begin and end times, however far apart, give a duration", "[model]")
{
    testing::JournalBuilder b;
    b.end(b.begin("pkg", "source", "/site/pkg/__init__.py"));
    journal::JournalContents contents = b.contents();
    std::get<journal::ImportBegin>(contents.events.at(1)).mono_ns = std::numeric_limits<std::int64_t>::min() + 7;
    std::get<journal::ImportEnd>(contents.events.at(2)).mono_ns = std::numeric_limits<std::int64_t>::max();

    const auto model = analysis::build_model(contents); // no signed overflow (make sanitize)
    REQUIRE(model.modules.size() == 1);
    REQUIRE(model.modules[0].duration_ms);
    CHECK(*model.modules[0].duration_ms == Approx(1.8446744e13));
}

TEST_CASE("an import without its end is incomplete: the process died inside it", "[model]")
{
    testing::JournalBuilder b;
    b.begin("pkg._C", "extension", "/site/pkg/_C.so", journal::FileIdentity{1, 5});
    b.extension("pkg._C", "/site/pkg/_C.so", journal::FileIdentity{1, 5});

    const auto model = analysis::build_model(b.contents());
    REQUIRE(model.modules.size() == 1);
    CHECK(model.modules[0].status == ImportStatus::incomplete);
    CHECK(model.modules[0].initialized_extension);
}

TEST_CASE("an extension load the finder never saw is kept with an unknown outcome", "[model]")
{
    testing::JournalBuilder b;
    b.extension("other._C", "/site/pkg/_C.so", journal::FileIdentity{1, 5});

    const auto model = analysis::build_model(b.contents());
    REQUIRE(model.modules.size() == 1);
    CHECK(model.modules[0].name == "other._C");
    CHECK(model.modules[0].kind == "extension");
    CHECK(model.modules[0].status == ImportStatus::unknown);
    CHECK_FALSE(model.modules[0].via_finder);
    CHECK(model.modules[0].initialized_extension);
}

TEST_CASE("events of several processes are folded per process", "[model]")
{
    testing::JournalBuilder b(1);
    b.extension_import("a._C", "/x/_C.so", {1, 5});
    b.process(2, 1);
    b.extension_import("b._C", "/x/_C.so", {1, 5});
    b.uncaught("KeyError", "'x'");

    const auto model = analysis::build_model(b.contents());
    REQUIRE(model.processes.size() == 2);
    CHECK(model.processes[1].ppid == 1);
    REQUIRE(model.processes[1].uncaught);
    CHECK(model.processes[1].uncaught->type == "KeyError");
    REQUIRE(model.modules.size() == 2);
    CHECK(model.modules[0].pid == 1);
    CHECK(model.modules[1].pid == 2);
}

TEST_CASE("an end without a beginning is noted as a gap", "[model]")
{
    testing::JournalBuilder b;
    b.end(77);
    const auto model = analysis::build_model(b.contents());
    REQUIRE(model.problems.size() == 1);
    CHECK(model.problems[0].find("#77") != std::string::npos);
}

TEST_CASE("a process's recorded end is a ProcessExit; an end of no known kind is a gap, not an end", "[model]")
{
    testing::JournalBuilder quitting;
    quitting.end_of_process("os._exit", 3);
    const auto model = analysis::build_model(quitting.contents());
    REQUIRE(model.processes.at(0).end);
    CHECK(model.processes[0].end->how == ExitKnownBy::os_exit);
    CHECK(model.processes[0].end->code == 3);
    CHECK_FALSE(model.processes[0].end->signal);

    testing::JournalBuilder vanishing;
    vanishing.end_of_process("vanished", 0);
    const auto odd = analysis::build_model(vanishing.contents());
    CHECK_FALSE(odd.processes.at(0).end);
    REQUIRE(odd.problems.size() == 1);
    CHECK_THAT(odd.problems[0], Catch::Contains("\"vanished\""));
}
