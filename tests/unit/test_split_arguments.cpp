#include "importscope/cli/run_command.hpp"

#include <catch2/catch.hpp>

using importscope::app::RunOptions;
using importscope::cli::setup_run;
using importscope::cli::split_target_arguments;
using Words = std::vector<std::string>;

namespace {

std::pair<Words, Words> split(const Words& words)
{
    CLI::App app;
    RunOptions options;
    CLI::App* run = setup_run(app, options);
    auto split = split_target_arguments(*run, words);
    REQUIRE_FALSE(split.command);
    return {split.own, split.target_args};
}

} // namespace

TEST_CASE("the target's arguments are never parsed as importscope's", "[cli]")
{
    const auto [own, target] = split({"--match", "torch", "-o", "r.json", "serve.py", "-o", "x", "--match", "--help"});
    CHECK(own == Words{"--match", "torch", "-o", "r.json", "serve.py"});
    CHECK(target == Words{"-o", "x", "--match", "--help"});
}

TEST_CASE("options -m and -c end importscope's options, as in python", "[cli]")
{
    CHECK(split({"-m", "vllm.entrypoints", "serve", "--timeout", "3"}) ==
          std::pair<Words, Words>{{"-m", "vllm.entrypoints"}, {"serve", "--timeout", "3"}});
    CHECK(split({"--timeout", "5", "-c", "import x", "a"}) ==
          std::pair<Words, Words>{{"--timeout", "5", "-c", "import x"}, {"a"}});
    CHECK(split({"-mjson.tool", "f"}) == std::pair<Words, Words>{{"-mjson.tool"}, {"f"}});
}

TEST_CASE("a double dash makes the next word a command, even if it starts with a dash", "[cli]")
{
    CLI::App app;
    RunOptions options;
    CLI::App* run = setup_run(app, options);
    CHECK(split_target_arguments(*run, {"-q", "--", "pytest", "-q", "tests/"}) ==
          importscope::cli::SplitWords{{"-q"}, "pytest", {"-q", "tests/"}});
    CHECK(split_target_arguments(*run, {"--", "-weird", "a"}) == importscope::cli::SplitWords{{}, "-weird", {"a"}});
    CHECK(split_target_arguments(*run, {"--"}) == importscope::cli::SplitWords{{}, std::nullopt, {}});
}

TEST_CASE("options that carry their value in the same word take nothing else", "[cli]")
{
    CHECK(split({"--output=r.json", "-or2.json", "t.py", "x"}) ==
          std::pair<Words, Words>{{"--output=r.json", "-or2.json", "t.py"}, {"x"}});
}
