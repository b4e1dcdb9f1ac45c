#include "importscope/analysis/environment_reads.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace importscope;

namespace {

journal::EnvironmentRead read(std::string name, std::string file, int line, std::string module, const char* value,
                              std::uint64_t seq = 1)
{
    journal::EnvironmentRead e;
    e.pid = 10;
    e.seq = seq;
    e.name = std::move(name);
    e.set = value != nullptr;
    e.value = value ? value : "";
    e.frame = {std::move(file), line, "f", std::move(module)};
    return e;
}

analysis::ProcessRecord process_with(std::vector<journal::EnvironmentRead> reads)
{
    analysis::ProcessRecord p;
    p.pid = 10;
    p.environment_reads = std::move(reads);
    return p;
}

} // namespace

TEST_CASE("a variable's reads are grouped, and a line that copied the environment is a bulk read", "[environment]")
{
    std::vector<journal::EnvironmentRead> reads = {
        read("STAGE", "/fi/moe.py", 5, "fi.moe", "0"),
        read("UNSET", "/v/envs.py", 9, "v.envs", nullptr),
    };
    for (std::size_t i = 0; i < analysis::k_bulk_read_variables; ++i)
        reads.push_back(read("VAR" + std::to_string(i), "/t.py", 3, "__main__", "x"));
    reads.push_back(read("STAGE", "/fi/other.py", 7, "fi.other", "0"));
    const auto grouped = analysis::environment_reads(process_with(reads));
    REQUIRE(grouped.variables.size() == 2);
    CHECK(grouped.variables[0].name == "STAGE");
    CHECK(grouped.variables[0].read_at.size() == 2);
    CHECK(grouped.variables[0].read_at[1].file == "/fi/other.py");
    CHECK_FALSE(grouped.variables[1].set);
    REQUIRE(grouped.bulk.size() == 1);
    CHECK(grouped.bulk[0].at.file == "/t.py");
    CHECK(grouped.bulk[0].variables == analysis::k_bulk_read_variables);

    // One variable fewer and that line is an ordinary reader of each.
    reads.erase(reads.begin() + 2);
    CHECK(analysis::environment_reads(process_with(reads)).bulk.empty());
}

TEST_CASE("an error finding names the settings read on its import path before its last load, and no other", "[environment]")
{
    analysis::RunModel model;
    model.processes.push_back(process_with({
        read("VLLM_USE_X", "/v/envs.py", 9, "v.envs", nullptr),
        read("STAGE", "/fi/moe.py", 5, "fi.moe", "0"),
        read("HOME", "/other/lib.py", 1, "other.lib", "/root"),
        read("LATER", "/fi/moe.py", 30, "fi.moe", "1", 50),
    }));
    analysis::Finding error;
    error.kind = "duplicate-extension-init";
    error.severity = analysis::Severity::error;
    error.pid = 10;
    error.evidence =
        analysis::evidence_of(error.kind, {{"initializations",
                                            {{{"order", 40U},
                                              {"stack",
                                               {{{"file", "/v/main.py"}, {"line", 1}, {"module", "v.main"}},
                                                {{"file", "/fi/moe.py"}, {"line", 15}, {"module", "fi.moe"}}}}}}}});
    analysis::Finding warning = error;
    warning.severity = analysis::Severity::warning;
    analysis::Finding elsewhere = error;
    elsewhere.pid = 11;
    std::vector<analysis::Finding> findings = {error, warning, elsewhere};

    analysis::attach_environment_reads(findings, model);
    const auto reads = nlohmann::json(findings[0].evidence).at("environment_read");
    // STAGE, read in a file of the stack; not VLLM_USE_X, read elsewhere in package v, nor LATER,
    // read on the path after the last load, nor HOME.
    REQUIRE(reads.size() == 1);
    CHECK(reads[0].at("name") == "STAGE");
    CHECK(reads[0].at("value") == "0");
    CHECK(reads[0].at("on_import_path") == true);
    CHECK(reads[0].at("line") == 5);
    CHECK_FALSE(nlohmann::json(findings[1].evidence).contains("environment_read")); // warnings are left as they are
    CHECK_FALSE(nlohmann::json(findings[2].evidence).contains("environment_read")); // another process read nothing
}
