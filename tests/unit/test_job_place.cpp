#include "importscope/app/job_place.hpp"
#include "importscope/util/error.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace importscope;

namespace {

report::Job job_of(const std::map<std::string, std::string>& variables)
{
    return app::job_of_environment([&](const char* name) -> const char* {
        const auto it = variables.find(name);
        return it == variables.end() ? nullptr : it->second.c_str();
    });
}

} // namespace

TEST_CASE("the rank, job and launcher are read from the launcher's variables", "[job]")
{
    SECTION("an srun task")
    {
        const report::Job job = job_of({{"SLURM_JOB_ID", "4242"}, {"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "5"},
                                        {"SLURM_LOCALID", "1"}, {"SLURM_NTASKS", "8"}, {"SLURMD_NODENAME", "gb200-03"}});
        CHECK(job.launcher == "slurm");
        CHECK(job.job_id == "4242");
        CHECK(job.step_id == "0");
        CHECK(job.node == "gb200-03");
        CHECK((job.rank == 5 && job.local_rank == 1 && job.world_size == 8));
    }
    SECTION("torchrun's worker under Slurm: the rank the program itself uses, the job Slurm's")
    {
        const report::Job job = job_of({{"SLURM_JOB_ID", "9"}, {"SLURM_PROCID", "0"}, {"RANK", "6"},
                                        {"LOCAL_RANK", "2"}, {"WORLD_SIZE", "16"}, {"TORCHELASTIC_RUN_ID", "r1"}});
        CHECK(job.launcher == "torchrun");
        CHECK((job.rank == 6 && job.local_rank == 2 && job.world_size == 16));
        CHECK(job.job_id == "9");
    }
    SECTION("Open MPI and PMI")
    {
        CHECK(job_of({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}}).launcher == "mpi");
        CHECK(job_of({{"PMI_RANK", "2"}}).rank == 2);
        CHECK(job_of({{"PMIX_RANK", "1"}}).local_rank == std::nullopt);
    }
    SECTION("a batch script outside any step: Slurm's job, no rank")
    {
        const report::Job job = job_of({{"SLURM_JOB_ID", "12"}});
        CHECK((job.launcher == "slurm" && job.rank == std::nullopt));
    }
    SECTION("no launcher, or a rank that is no whole number: nothing")
    {
        const report::Job none = job_of({});
        CHECK((!none.launcher && !none.job_id && !none.rank));
        CHECK(!job_of({{"RANK", "two"}}).rank);
        CHECK(!job_of({{"RANK", "-1"}}).rank);
        CHECK(!job_of({{"RANK", "1x"}}).launcher);
    }
}

TEST_CASE("The placeholders of -o give each rank its own report", "[job]")
{
    report::Job job;
    job.rank = 3;
    job.local_rank = 1;
    job.job_id = "77";
    CHECK(app::expand_output_placeholders("out/{job}/report-{host}-{rank}.{local_rank}.json", job, "node7.cluster", 41) ==
          "out/77/report-node7-3.1.json");
    CHECK(app::expand_output_placeholders("r-{pid}.json", job, "h", 41) == "r-41.json");
    CHECK(app::expand_output_placeholders("plain.json", job, "h", 1) == "plain.json");
    CHECK(app::expand_output_placeholders("{{literal}}.json", job, "h", 1) == "{literal}.json");
    // Outside a launcher: rank 0, job "local".
    CHECK(app::expand_output_placeholders("{job}-{rank}.json", report::Job{}, "h", 1) == "local-0.json");
    // A value is made fit for a file name.
    job.job_id = "a/b";
    CHECK(app::expand_output_placeholders("{job}.json", job, "h", 1) == "a_b.json");
    CHECK_THROWS_WITH(app::expand_output_placeholders("{ranks}.json", job, "h", 1),
                      Catch::Contains("unknown placeholder {ranks}") && Catch::Contains("{local_rank}"));
    CHECK_THROWS_WITH(app::expand_output_placeholders("{rank.json", job, "h", 1), Catch::Contains("no }"));
    CHECK_THROWS_WITH(app::expand_output_placeholders("rank}.json", job, "h", 1), Catch::Contains("no {"));
}
