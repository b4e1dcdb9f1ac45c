#include "journal_builder.hpp"

#include "importscope/analysis/finding.hpp"

#include <catch2/catch.hpp>

using namespace importscope;

namespace {

std::vector<analysis::Finding> findings_of(const testing::JournalBuilder& b)
{
    return analysis::find_duplicate_extension_inits(analysis::build_model(b.contents()));
}

const journal::ExceptionInfo k_already_registered{"ImportError",
                                                  "generic_type: type \"Runtime\" is already registered!", ""};

} // namespace

TEST_CASE("the vLLM case: one .so initialized as the vendored name and the alias", "[duplicate-extension-init]")
{
    testing::JournalBuilder b;
    b.extension_import("vllm.third_party.deep_gemm._C", "/site/vllm/third_party/deep_gemm/_C.so", {8, 1234});
    b.extension_import("deep_gemm._C", "/site/vllm/third_party/deep_gemm/_C.so", {8, 1234}, k_already_registered);

    const auto findings = findings_of(b);
    REQUIRE(findings.size() == 1);
    const auto& f = findings[0];
    CHECK(f.kind == "duplicate-extension-init");
    CHECK(f.severity == analysis::Severity::error);
    CHECK(f.pid == 100);
    CHECK(f.file == "/site/vllm/third_party/deep_gemm/_C.so");
    CHECK(f.module_names == std::vector<std::string>{"vllm.third_party.deep_gemm._C", "deep_gemm._C"});
    CHECK(f.message.find("already registered") != std::string::npos);
    CHECK(f.advice.find("deep_gemm is an alias of vllm.third_party.deep_gemm") != std::string::npos);
    const auto inits = nlohmann::json(f.evidence).at("initializations");
    REQUIRE(inits.size() == 2);
    CHECK(inits[0].at("status") == "ok");
    CHECK(inits[1].at("status") == "error");
    CHECK(inits[1].at("error").at("type") == "ImportError");
    CHECK(inits[1].at("call_site").at("file") == "/src/importer.py");
}

TEST_CASE("a symlink or hard link to the same file counts: identity, not path", "[duplicate-extension-init]")
{
    testing::JournalBuilder b;
    b.extension_import("a._C", "/site/a/_C.so", {8, 1234});
    b.extension_import("b._C", "/opt/link/to/_C.so", {8, 1234});
    const auto findings = findings_of(b);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].module_names.size() == 2);
}

TEST_CASE("two different files with one name pattern are not a duplicate init", "[duplicate-extension-init]")
{
    testing::JournalBuilder b;
    b.extension_import("a._C", "/site/a/_C.so", {8, 1});
    b.extension_import("b._C", "/site/b/_C.so", {8, 2});
    CHECK(findings_of(b).empty());
}

TEST_CASE("the same file in two processes is not a duplicate within either", "[duplicate-extension-init]")
{
    testing::JournalBuilder b(1);
    b.extension_import("a._C", "/site/a/_C.so", {8, 1});
    b.process(2, 1);
    b.extension_import("b._C", "/site/a/_C.so", {8, 1});
    CHECK(findings_of(b).empty());
}

TEST_CASE("a load that bypassed sys.meta_path still counts", "[duplicate-extension-init]")
{
    testing::JournalBuilder b;
    b.extension_import("pkg._C", "/site/pkg/_C.so", {8, 1});
    b.extension("other._C", "/site/pkg/_C.so", journal::FileIdentity{8, 1}); // spec_from_file_location
    const auto findings = findings_of(b);
    REQUIRE(findings.size() == 1);
    CHECK(nlohmann::json(findings[0].evidence).at("initializations")[1].at("status") == "unknown");
}

TEST_CASE("without a file identity, loads are matched by real path", "[duplicate-extension-init]")
{
    testing::JournalBuilder b;
    b.extension("a._C", "/gone/_C.so", std::nullopt);
    b.extension("b._C", "/gone/_C.so", std::nullopt);
    b.extension("c._C", "/other/_C.so", std::nullopt);
    const auto findings = findings_of(b);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].module_names == std::vector<std::string>{"a._C", "b._C"});
}

TEST_CASE("three names for one file are one finding listing all three", "[duplicate-extension-init]")
{
    testing::JournalBuilder b;
    b.extension_import("x.y._C", "/s/_C.so", {1, 1});
    b.extension_import("y._C", "/s/_C.so", {1, 1});
    b.extension_import("z._C", "/s/_C.so", {1, 1});
    const auto findings = findings_of(b);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].module_names.size() == 3);
    CHECK(findings[0].message.find("3 times") != std::string::npos);
}

TEST_CASE("the cause that fits the evidence: an alias, a package directory on sys.path, or neither",
          "[duplicate-extension-init]")
{
    SECTION("an import went through the alias: sys.modules")
    {
        testing::JournalBuilder b;
        b.extension_import("vllm.third_party.deep_gemm._C", "/site/vllm/third_party/deep_gemm/_C.so", {8, 1});
        b.alias("deep_gemm", "vllm.third_party.deep_gemm");
        b.extension_import("deep_gemm._C", "/site/vllm/third_party/deep_gemm/_C.so", {8, 1}, k_already_registered);
        const auto findings = findings_of(b);
        REQUIRE(findings.size() == 1);
        CHECK(nlohmann::json(findings[0].evidence).at("cause").at("kind") == "sys.modules alias");
        CHECK(nlohmann::json(findings[0].evidence).at("cause").at("key") == "deep_gemm");
        CHECK_THAT(findings[0].advice, Catch::Contains("deep_gemm is an alias of vllm.third_party.deep_gemm in "
                                                       "sys.modules: alias every loaded submodule"));
    }
    SECTION("sys.path alone imports the second name from the package's directory: that sys.path entry")
    {
        testing::JournalBuilder b;
        b.extension_import("pikepdf._core", "/usr/lib/python3/dist-packages/pikepdf/_core.so", {8, 2});
        b.installation("_core", "/usr/lib/python3/dist-packages/pikepdf/_core.so");
        b.extension_import("_core", "/usr/lib/python3/dist-packages/pikepdf/_core.so", {8, 2}, k_already_registered);
        const auto findings = findings_of(b);
        REQUIRE(findings.size() == 1);
        const auto cause = nlohmann::json(findings[0].evidence).at("cause");
        CHECK(cause.at("kind") == "package directory on sys.path");
        CHECK(cause.at("entry") == "/usr/lib/python3/dist-packages/pikepdf");
        CHECK(cause.at("package") == "pikepdf");
        CHECK_THAT(findings[0].advice, Catch::Contains("/usr/lib/python3/dist-packages/pikepdf is the directory of "
                                                       "the package pikepdf"));
        CHECK(findings[0].advice.find("setdefault") == std::string::npos);
    }
    SECTION("neither is seen: the advice says what to look for")
    {
        testing::JournalBuilder b;
        b.extension_import("a.b._C", "/s/a/b/_C.so", {8, 3});
        b.installation("b", ""); // sys.path alone finds no b
        b.extension_import("b._C", "/s/a/b/_C.so", {8, 3}, k_already_registered);
        const auto findings = findings_of(b);
        REQUIRE(findings.size() == 1);
        CHECK(nlohmann::json(findings[0].evidence).at("cause").at("kind") == "unknown");
    }
}

TEST_CASE("an init that gave back the module it made is a warning; a load that reached no PyInit is no init",
          "[duplicate-extension-init]")
{
    SECTION("Cython's guard: the second init gave back lxml.etree")
    {
        testing::JournalBuilder b;
        b.extension_import("lxml.etree", "/usr/lib/python3/dist-packages/lxml/etree.so", {8, 4});
        b.extension_import("etree", "/usr/lib/python3/dist-packages/lxml/etree.so", {8, 4}, std::nullopt, "lxml.etree");
        const auto findings = findings_of(b);
        REQUIRE(findings.size() == 1);
        CHECK(findings[0].severity == analysis::Severity::warning);
        CHECK_THAT(findings[0].message, Catch::Contains("each init after the first gave back the module it made "
                                                        "(etree is lxml.etree)"));
        CHECK_THAT(findings[0].explanation, Catch::Contains("Cython's guard"));
        CHECK(nlohmann::json(findings[0].evidence).at("initializations")[1].at("existing_module") == "lxml.etree");
    }
    SECTION("a third init that made a module of its own is an error again")
    {
        testing::JournalBuilder b;
        b.extension_import("lxml.etree", "/x/etree.so", {8, 5});
        b.extension_import("etree", "/x/etree.so", {8, 5}, std::nullopt, "lxml.etree");
        b.extension_import("other.etree", "/x/etree.so", {8, 5});
        const auto findings = findings_of(b);
        REQUIRE(findings.size() == 1);
        CHECK(findings[0].severity == analysis::Severity::error);
    }
    SECTION("loaded under a name it has no PyInit for: no second init")
    {
        testing::JournalBuilder b;
        b.extension_import("pkg._impl", "/x/_impl.so", {8, 6});
        b.extension_import("renamed", "/x/_impl.so", {8, 6},
                           journal::ExceptionInfo{"ImportError",
                                                  "dynamic module does not define module export function "
                                                  "(PyInit_renamed)",
                                                  ""});
        CHECK(findings_of(b).empty());
    }
}
