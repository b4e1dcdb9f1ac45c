#include "importscope/analysis/scan.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

using namespace importscope;
using analysis::Severity;
using nlohmann::json;

namespace {

/// The scanner's facts with `aliases`, `extensions` and `package_dirs` in them.
json facts(json aliases = json::array(), json extensions = json::array(), json package_dirs = json::array())
{
    return {{"facts", "importscope-scan-facts/1"},
            {"python", {{"executable", "/usr/bin/python3"}, {"version", "3.11.2"}}},
            {"aliases", aliases},
            {"extensions", extensions},
            {"package_dirs_on_path", package_dirs}};
}

json alias(json importers = json::array(), json covered_by = json::array())
{
    return {{"file", "/src/compat.py"},  {"line", 16},
            {"alias", "deep_gemm"},      {"targets", {"vendor.deep_gemm"}},
            {"targets_known", true},     {"function", "expose"},
            {"value", "vendored"},       {"target", "vendor.deep_gemm"},
            {"target_is_package", true}, {"target_file", "/src/vendor/deep_gemm/__init__.py"},
            {"importers", importers},    {"covered_by", covered_by}};
}

json importer_reaching_extension()
{
    return {{"file", "/src/consumer.py"},
            {"line", 15},
            {"module", "deep_gemm.utils"},
            {"executes_again",
             {{{"module", "deep_gemm.utils"}, {"file", "/src/vendor/deep_gemm/utils/__init__.py"}},
              {{"module", "deep_gemm._C"},
               {"file", "/src/vendor/deep_gemm/_C.so"},
               {"imported_at", {{"file", "/src/vendor/deep_gemm/utils/__init__.py"}, {"line", 1}}}}}}};
}

std::vector<analysis::Finding> findings_of(const json& document, const analysis::AnalysisOptions& options = {})
{
    return analysis::find_static_hazards(analysis::parse_scan_facts(document.dump()), options);
}

} // namespace

TEST_CASE("an alias whose importer reaches an extension is an error naming both places and the chain")
{
    const auto findings = findings_of(facts(json::array({alias(json::array({importer_reaching_extension()}))})));
    REQUIRE(findings.size() == 1);
    const analysis::Finding& f = findings.front();
    CHECK(f.kind == "partial-alias");
    CHECK(f.severity == Severity::error);
    CHECK(f.module_names == std::vector<std::string>{"deep_gemm", "vendor.deep_gemm"});
    CHECK(f.message.find("/src/compat.py:16") != std::string::npos);
    CHECK(f.message.find("/src/consumer.py:15 imports deep_gemm.utils") != std::string::npos);
    CHECK(f.message.find("/src/vendor/deep_gemm/utils/__init__.py:1 imports deep_gemm._C") != std::string::npos);
    CHECK(nlohmann::json(f.evidence)["static"]["seen"] ==
          json::array({{{"file", "/src/compat.py"}, {"line", 16}}, {{"file", "/src/consumer.py"}, {"line", 15}}}));
}

TEST_CASE("an alias with its submodules aliased in a loop, or with no importer, is a warning")
{
    const json loop = {{"file", "/src/compat.py"}, {"line", 27}, {"prefix", "deep_gemm."}, {"function", "expose"}};
    const auto covered =
        findings_of(facts(json::array({alias(json::array({importer_reaching_extension()}), json::array({loop}))})));
    REQUIRE(covered.size() == 1);
    CHECK(covered.front().severity == Severity::warning);
    CHECK(nlohmann::json(covered.front().evidence)["submodules_aliased_at"] ==
          json::array({{{"file", "/src/compat.py"}, {"line", 27}}}));
    const auto alone = findings_of(facts(json::array({alias()})));
    REQUIRE(alone.size() == 1);
    CHECK(alone.front().severity == Severity::warning);
    CHECK(alone.front().message.find("no scanned code imports a submodule through deep_gemm") != std::string::npos);
}

TEST_CASE("identical extensions are hashed only beside one of the same name and size")
{
    const json extensions = {{{"path", "/a/x/_C.so"}, {"module", "x._C"}, {"root", "/a"}, {"size", 10}},
                             {{"path", "/b/y/_C.so"}, {"module", "y._C"}, {"root", "/b"}, {"size", 10}},
                             {{"path", "/b/y/_D.so"}, {"module", "y._D"}, {"root", "/b"}, {"size", 10}}};
    std::vector<std::string> hashed;
    analysis::AnalysisOptions options;
    options.hash_file = [&](const std::string& path) -> std::optional<std::string> {
        hashed.push_back(path);
        return "same";
    };
    const auto findings = findings_of(facts(json::array(), extensions), options);
    REQUIRE(findings.size() == 1);
    CHECK(findings.front().kind == "duplicate-extension-copy");
    CHECK(nlohmann::json(findings.front().evidence)["matched_by"] == "sha256");
    CHECK(findings.front().module_names == std::vector<std::string>{"x._C", "y._C"});
    CHECK(hashed == std::vector<std::string>{"/a/x/_C.so", "/b/y/_C.so"});
}

TEST_CASE("one package-relative extension path owned by two distributions is a copy; in one distribution it is not")
{
    // tensorflow and tflite-runtime, say: each ships lite/_wrapper.so under a package of its own.
    const json extensions = {
        {{"path", "/site/tf/lite/_wrapper.so"}, {"module", "tf.lite._wrapper"}, {"root", "/site"}, {"size", 10}},
        {{"path", "/site/tfl/lite/_wrapper.so"}, {"module", "tfl.lite._wrapper"}, {"root", "/site"}, {"size", 20}}};
    std::vector<std::string> asked;
    analysis::AnalysisOptions options;
    options.distribution_of = [&](const std::string& origin) {
        asked.push_back(origin);
        return std::vector<analysis::Distribution>{
            {origin.find("/tfl/") != std::string::npos ? "tflite-runtime" : "tensorflow", "2.15"}};
    };
    const auto findings = findings_of(facts(json::array(), extensions), options);
    REQUIRE(findings.size() == 1);
    CHECK(nlohmann::json(findings.front().evidence)["matched_by"] == "package-relative path");
    CHECK(nlohmann::json(findings.front().evidence)["copies"][1]["distributions"] ==
          json::array({{{"name", "tflite-runtime"}, {"version", "2.15"}}}));
    CHECK(std::find(asked.begin(), asked.end(), "/site/tfl/__init__.py") != asked.end());
    options.distribution_of = [](const std::string&) {
        return std::vector<analysis::Distribution>{{"one", "1.0"}};
    };
    CHECK(findings_of(facts(json::array(), extensions), options).empty());
}

TEST_CASE("a package directory on sys.path is an error with an extension in it, a warning without")
{
    const json entry = {{"entry", "/site/pkg"}, {"path", "/site/pkg"}, {"origin", ".pth"},
                        {"pth", {{"file", "/site/trap.pth"}, {"line", 1}}}};
    const json with_extension = {
        {"entry", entry}, {"outer_entry", "/site"}, {"package", "pkg"}, {"extensions", {"/site/pkg/_e.so"}}};
    const auto error = findings_of(facts(json::array(), json::array(), json::array({with_extension})));
    REQUIRE(error.size() == 1);
    CHECK(error.front().kind == "package-directory-on-sys-path");
    CHECK(error.front().severity == Severity::error);
    CHECK(error.front().advice == "Remove line 1 of /site/trap.pth: import pkg by its package name.");
    json without = with_extension;
    without["extensions"] = json::array();
    CHECK(findings_of(facts(json::array(), json::array(), json::array({without}))).front().severity ==
          Severity::warning);
}

TEST_CASE("a document that is not the scanner's facts is refused with what it says")
{
    CHECK_THROWS_AS(analysis::parse_scan_facts("[]"), std::invalid_argument);
    CHECK_THROWS_WITH(analysis::parse_scan_facts(R"({"error": "/x: no such file or directory"})"),
                      "/x: no such file or directory");
    CHECK_THROWS_AS(analysis::parse_scan_facts(R"({"facts": "importscope-scan-facts/1", "aliases": 3})"),
                    std::invalid_argument);
}

TEST_CASE("an importer of Python source only says whether what it executes also runs under the package's names")
{
    const auto through = [](const json& under_both_names) {
        json importer = {{"file", "/src/consumer.py"},
                         {"line", 7},
                         {"module", "deep_gemm.utils"},
                         {"executes_again", json::array()}};
        if (!under_both_names.is_null())
            importer["under_both_names"] = under_both_names;
        const auto found = findings_of(facts(json::array({alias(json::array({importer}))})));
        REQUIRE(found.size() == 1);
        CHECK(found.front().severity == Severity::warning);
        return found.front();
    };
    // vLLM's triton_kernels: a package made to be imported through its alias, whose modules nothing
    // imports by their own names.
    const analysis::Finding once = through(json::array());
    CHECK(once.message.find("/src/consumer.py:7 imports deep_gemm.utils through it: the scanned code runs none of "
                            "the modules that import execute under vendor.deep_gemm's own names, so each would run "
                            "once, under the alias") != std::string::npos);
    CHECK(nlohmann::json(once.evidence)["importers"][0]["under_both_names"] == json::array());
    // vLLM 0.34.0's deep_gemm: its __init__ imports utils under its own name first.
    const analysis::Finding twice = through({"deep_gemm._C", "deep_gemm.utils"});
    CHECK(twice.message.find("deep_gemm.utils would be executed again under the alias, as it runs as "
                             "vendor.deep_gemm.utils too") != std::string::npos);
    // Facts of a scan that could not follow the import: the old words, nothing claimed.
    const analysis::Finding unknown = through(nullptr);
    CHECK(unknown.message.find("that module's source would be executed again under the alias") != std::string::npos);
    CHECK_FALSE(nlohmann::json(unknown.evidence)["importers"][0].contains("under_both_names"));
}
