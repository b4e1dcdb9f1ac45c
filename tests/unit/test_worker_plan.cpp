// The worker's contract with the environment: the PYTHONPATH the children get, and the target's own
// read back from it.

#include "importscope/embed/worker.hpp"

#include <catch2/catch.hpp>

using namespace importscope;

TEST_CASE("the target's PYTHONPATH is the children's without the bootstrap directory", "[worker-plan]")
{
    embed::WorkerPlan plan;
    plan.bootstrap_dir = "/opt/importscope/lib/importscope/bootstrap";
    CHECK(embed::target_python_path(plan, plan.bootstrap_dir) == std::string());
    CHECK(embed::target_python_path(plan, plan.bootstrap_dir + ":/src:/lib") == std::string("/src:/lib"));
    CHECK_FALSE(embed::target_python_path(plan, "/src"));                         // not made for the children
    CHECK_FALSE(embed::target_python_path(plan, plan.bootstrap_dir + "2:/src")); // another directory
    plan.follow = false;
    CHECK_FALSE(embed::target_python_path(plan, plan.bootstrap_dir + ":/src")); // children not followed
}
