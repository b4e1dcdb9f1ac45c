#include "journal_builder.hpp"

#include "importscope/analysis/finding.hpp"

#include <catch2/catch.hpp>

using namespace importscope;

namespace {

std::vector<analysis::Finding> failed_loads(const testing::JournalBuilder& b)
{
    std::vector<analysis::Finding> out;
    for (auto& f : analysis::analyze(analysis::build_model(b.contents())))
        if (f.kind == "extension-load-failed")
            out.push_back(std::move(f));
    return out;
}

const journal::ExceptionInfo k_missing_library{
    "ImportError", "libcuda.so.1: cannot open shared object file: No such file or directory", ""};

} // namespace

TEST_CASE("an extension load that raised and that the process survived is a warning with where it was caught",
          "[failed-loads]")
{
    testing::JournalBuilder b;
    const auto id = b.begin("deep_gemm._C", "extension", "/s/deep_gemm/_C.cpython-311-x86_64-linux-gnu.so");
    b.end(id, k_missing_library);
    b.caught(id, {"/s/vllm/utils/deep_gemm.py", 41, "_lazy_init", "vllm.utils.deep_gemm"});
    b.end_of_process("exit", 0);
    const auto findings = failed_loads(b);
    REQUIRE(findings.size() == 1);
    const auto& f = findings[0];
    CHECK(f.severity == analysis::Severity::warning);
    CHECK(f.module_names == std::vector<std::string>{"deep_gemm._C"});
    CHECK(nlohmann::json(f.evidence)["reason"] == "missing-library");
    CHECK(nlohmann::json(f.evidence)["caught_at"]["file"] == "/s/vllm/utils/deep_gemm.py");
    CHECK(nlohmann::json(f.evidence)["caught_at"]["line"] == 41);
    CHECK(nlohmann::json(f.evidence)["import_site"]["file"] == "/src/importer.py");
    CHECK(f.message.find("_lazy_init caught it at /s/vllm/utils/deep_gemm.py:41") != std::string::npos);
    CHECK(f.advice.find("ldd /s/deep_gemm/_C.cpython-311-x86_64-linux-gnu.so") != std::string::npos);
}

TEST_CASE("a failed load that ended the process, or that a duplicate init explains, is no such warning",
          "[failed-loads]")
{
    SECTION("it ended the process: the crash tells of it")
    {
        testing::JournalBuilder b;
        const auto id = b.begin("deep_gemm._C", "extension", "/s/deep_gemm/_C.so");
        b.end(id, k_missing_library);
        b.uncaught("RuntimeError", "DeepGEMM is needed: libcuda.so.1: cannot open shared object file: No such file or "
                                   "directory");
        CHECK(failed_loads(b).empty());
    }
    SECTION("pybind11 refused a second registration: duplicate-extension-init's and native-type-conflict's")
    {
        testing::JournalBuilder b;
        b.extension_import("deep_gemm._C", "/s/deep_gemm/_C.so", {1, 2});
        b.extension_import("vllm.deep_gemm._C", "/s/deep_gemm/_C.so", {1, 2},
                           journal::ExceptionInfo{"ImportError", "generic_type: type \"Runtime\" is already registered!",
                                                  ""});
        CHECK(failed_loads(b).empty());
    }
    SECTION("a source module that raised is not an extension load")
    {
        testing::JournalBuilder b;
        const auto id = b.begin("pkg.mod", "source", "/s/pkg/mod.py");
        b.end(id, journal::ExceptionInfo{"ImportError", "cannot import name 'x'", ""});
        CHECK(failed_loads(b).empty());
    }
}

TEST_CASE("a submodule built for other interpreters only is a warning that names the builds", "[failed-loads]")
{
    testing::JournalBuilder b;
    b.no_build("vllm._C", {"/s/vllm/_C.cpython-312-x86_64-linux-gnu.so"});
    const auto findings = failed_loads(b);
    REQUIRE(findings.size() == 1);
    const auto& f = findings[0];
    CHECK(nlohmann::json(f.evidence)["reason"] == "no-build-for-this-interpreter");
    CHECK(nlohmann::json(f.evidence)["files"] == nlohmann::json{"/s/vllm/_C.cpython-312-x86_64-linux-gnu.so"});
    CHECK(f.message.find("CPython 3.12") != std::string::npos);
    CHECK(f.advice.find(".cpython-311-x86_64-linux-gnu.so") != std::string::npos);

    SECTION("unless the process ended of the ModuleNotFoundError")
    {
        b.uncaught("ModuleNotFoundError", "No module named 'vllm._C'");
        CHECK(failed_loads(b).empty());
    }
}
