#include "importscope/analysis/task_launchers.hpp"
#include "importscope/util/task_launcher.hpp"

#include <catch2/catch.hpp>

using namespace importscope;

namespace {

analysis::RunModel python_that_started(const std::string& via, const std::vector<std::string>& argv)
{
    analysis::RunModel model;
    analysis::ProcessRecord driver;
    driver.pid = 10;
    driver.ppid = 1;
    journal::ProgramStart start;
    start.pid = 10;
    start.via = via;
    start.executable = argv.front();
    start.argv = argv;
    driver.programs.push_back(start);
    model.processes.push_back(driver);
    return model;
}

} // namespace

TEST_CASE("srun, sbatch and the names of mpirun are task launchers; a Python or a shell is not", "[launchers]")
{
    CHECK(task_launcher_named("srun") == TaskLauncher::srun);
    CHECK(task_launcher_named("sbatch") == TaskLauncher::sbatch);
    for (const char* name : {"mpirun", "mpiexec", "mpiexec.hydra", "orterun", "prterun"})
        CHECK(task_launcher_named(name) == TaskLauncher::mpirun);
    for (const char* name : {"python3", "sh", "torchrun", "srun.sh", "salloc", ""})
        CHECK_FALSE(task_launcher_named(name));
}

TEST_CASE("the run's own srun is one entry: its helper process and its sighting are not others", "[launchers]")
{
    const std::vector<std::string> argv{"srun", "-n", "4", "python", "x.py"};
    const std::vector<ObservedLauncher> observed{
        {100, 99, "the command", "/usr/bin/srun", argv},
        {100, 99, "seen running", "/usr/bin/srun", argv},  // the same process, seen by /proc
        {101, 100, "seen running", "/usr/bin/srun", argv}, // the helper srun forks
    };
    const auto entries = analysis::untraced_launchers({}, observed);
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].parent_pid == 99);
    CHECK(entries[0].via == "the command");
    CHECK(entries[0].argv == argv);
    CHECK_THAT(entries[0].reason, Catch::Contains("slurmd") && Catch::Contains("outside importscope's process tree"));
    CHECK_THAT(entries[0].advice, Catch::Contains("srun ... importscope run -o 'report-{rank}.json' -- python"));
}

TEST_CASE("an srun a traced Python started is listed once, as it started it", "[launchers]")
{
    const std::vector<std::string> argv{"srun", "-n", "2", "python", "x.py"};
    const auto model = python_that_started("subprocess.Popen", argv);
    const auto entries = analysis::untraced_launchers(model, {{20, 10, "seen running", "/usr/bin/srun", argv}});
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].parent_pid == 10);
    CHECK(entries[0].via == "subprocess.Popen");
}

TEST_CASE("an exec of mpirun in a traced process's place is listed once", "[launchers]")
{
    const std::vector<std::string> argv{"mpirun", "-np", "8", "python", "x.py"};
    const auto model = python_that_started("os.exec", argv);
    const auto entries = analysis::untraced_launchers(model, {{10, 1, "seen running", "/usr/bin/orterun", argv}});
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].via == "os.exec");
    CHECK_THAT(entries[0].reason, Catch::StartsWith("mpirun starts the ranks on other hosts"));
    CHECK_THAT(entries[0].advice, Catch::Contains("mpirun ... importscope run -o 'report-{rank}.json'"));
}

TEST_CASE("two sruns that a shell ran one after the other are two entries; other programs none", "[launchers]")
{
    const std::vector<std::string> first{"srun", "-n", "2", "python", "a.py"};
    const std::vector<std::string> second{"srun", "-n", "2", "python", "b.py"};
    const auto model = python_that_started("subprocess.Popen", {"/bin/sh", "-c", "srun -n 2 python a.py"});
    const auto entries = analysis::untraced_launchers(model, {{30, 29, "seen running", "/usr/bin/srun", first},
                                                              {31, 29, "seen running", "/usr/bin/srun", second},
                                                              {32, 29, "seen running", "/bin/sleep", {"sleep", "1"}}});
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].argv == first);
    CHECK(entries[1].argv == second);
    CHECK(entries[1].parent_pid == 29);
}

TEST_CASE("two identical sruns that a traced Python ran one after the other are two entries", "[launchers]")
{
    const std::vector<std::string> argv{"srun", "-n", "2", "python", "x.py"};
    auto model = python_that_started("subprocess.Popen", argv);
    model.processes[0].programs.push_back(model.processes[0].programs[0]);
    const auto entries = analysis::untraced_launchers(
        model, {{20, 10, "seen running", "/usr/bin/srun", argv}, {21, 10, "seen running", "/usr/bin/srun", argv}});
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].via == "subprocess.Popen");
    CHECK(entries[1].via == "subprocess.Popen");
}
