#include "journal_builder.hpp"
#include "temp_dir.hpp"

#include "importscope/analysis/finding.hpp"
#include "importscope/collect/binding_library.hpp"
#include "importscope/analysis/known_issues.hpp"
#include "importscope/journal/pybind11_message.hpp"
#include "importscope/util/redact.hpp"
#include "importscope/util/regular_file.hpp"
#include "importscope/util/sha256.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <fstream>
#include <sys/stat.h>

using namespace importscope;

namespace {

journal::JournalContents with_alias(testing::JournalBuilder& b, const std::string& key, const std::string& original)
{
    auto contents = b.contents();
    journal::AliasSeen alias;
    alias.pid = 100;
    alias.seq = 999;
    alias.key = key;
    alias.module_name = original;
    alias.file = "/s/" + original + "/__init__.py";
    contents.events.push_back(alias);
    return contents;
}

} // namespace

TEST_CASE("sha256 matches the FIPS 180-4 test vectors", "[sha256]")
{
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256_hex(std::string(1'000'000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    CHECK_FALSE(sha256_file("/nonexistent/file"));
}

TEST_CASE("a file is hashed only when it is regular and no larger than the bound", "[sha256]")
{
    testing::TempDir dir;
    const auto small = dir.path / "small.so";
    std::ofstream(small) << "abc";
    CHECK(sha256_file(small) == sha256_hex("abc"));
    // Sparse, a file past the bound costs nothing to make, and reading it whole would take minutes.
    const auto huge = dir.path / "huge.so";
    std::ofstream(huge).close();
    std::filesystem::resize_file(huge, k_largest_extension_file + 1);
    CHECK_FALSE(sha256_file(huge));
    const auto fifo = dir.path / "fifo.so";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_FALSE(sha256_file(fifo)); // not waited on for a writer
}

TEST_CASE("a file someone else controls is read only when regular, and only up to its bound", "[regular_file]")
{
    testing::TempDir dir;
    const auto text = dir.path / "text.json";
    std::ofstream(text) << "{\"pid\": 7}";
    CHECK(read_regular_file(text.c_str(), 64) == "{\"pid\": 7}");
    CHECK_FALSE(read_regular_file(text.c_str(), 4)); // more than the bound: nothing
    const auto empty = dir.path / "empty";
    std::ofstream(empty).close();
    CHECK(read_regular_file(empty.c_str(), 64) == "");
    const auto fifo = dir.path / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_FALSE(read_regular_file(fifo.c_str(), 64));     // not waited on for a writer
    CHECK_FALSE(read_regular_file(dir.path.c_str(), 64)); // a directory
    CHECK_FALSE(read_regular_file("/nonexistent/file", 64));
}

TEST_CASE("an extension's binding library is read from a regular file of a bounded size", "[binding]")
{
    testing::TempDir dir;
    const auto pybind = dir.path / "pybind.so";
    std::ofstream(pybind) << "ELF... __pybind11_internals_v4_gcc_libstdcpp_cxxabi1016 ...";
    CHECK(collect::binding_library_of(pybind.string()) == "pybind11");
    const auto plain = dir.path / "plain.so";
    std::ofstream(plain) << "ELF... PyInit_plain ...";
    CHECK(collect::binding_library_of(plain.string()) == "C API");
    // What a target can put where its extension was: neither waited on nor scanned.
    const auto fifo = dir.path / "fifo.so";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(collect::binding_library_of(fifo.string()).empty());
    const auto huge = dir.path / "huge.so";
    std::ofstream(huge).close();
    std::filesystem::resize_file(huge, k_largest_extension_file + 1);
    CHECK(collect::binding_library_of(huge.string()).empty());
}

TEST_CASE("secret names and credential-like values are redacted, ordinary values kept", "[redact]")
{
    CHECK(redact_variable("VLLM_API_KEY", "x") == "<redacted>");
    CHECK(redact_variable("hf_token", "x") == "<redacted>");
    CHECK(redact_variable("NCCL_AUTH", "x") == "<redacted>");
    CHECK(redact_variable("VLLM_X", "hf_aaaaaaaaaaaaaaaaaaaa") == "<redacted>");
    CHECK(redact_variable("VLLM_X", "sk-proj-1234567890") == "<redacted>");
    CHECK(redact_variable("VLLM_X", "QWxhZGRpbjpvcGVuIHNlc2FtZSBhbmQgbW9yZQ==") == "<redacted>");
    CHECK(redact_variable("LD_LIBRARY_PATH", "/usr/local/cuda/lib64:/opt/nccl/lib/and/a/long/path") ==
          "/usr/local/cuda/lib64:/opt/nccl/lib/and/a/long/path");
    CHECK(redact_variable("VLLM_LOGGING_LEVEL", "DEBUG") == "DEBUG");
    CHECK(redact_variable("CUDA_VISIBLE_DEVICES", "0,1,2,3") == "0,1,2,3");
}

TEST_CASE("a partial alias is an error when it led to a duplicate init", "[partial-alias]")
{
    testing::JournalBuilder b;
    b.extension_import("v.deep_gemm._C", "/s/v/deep_gemm/_C.so", {1, 1});
    const auto utils =
        b.begin("v.deep_gemm.utils", "source", "/s/v/deep_gemm/utils/__init__.py", journal::FileIdentity{1, 2});
    b.end(utils);
    const auto again =
        b.begin("deep_gemm.utils", "source", "/s/v/deep_gemm/utils/__init__.py", journal::FileIdentity{1, 2});
    b.extension_import("deep_gemm._C", "/s/v/deep_gemm/_C.so", {1, 1});
    b.end(again);
    const auto model = analysis::build_model(with_alias(b, "deep_gemm", "v.deep_gemm"));
    const auto findings = analysis::analyze(model);

    std::vector<std::string> kinds;
    kinds.reserve(findings.size());
    for (const auto& f : findings)
        kinds.push_back(f.kind);
    CHECK(kinds == std::vector<std::string>{"duplicate-extension-init", "partial-alias", "duplicate-source-exec"});
    const auto& alias = findings[1];
    CHECK(alias.severity == analysis::Severity::error);
    CHECK(nlohmann::json(alias.evidence).at("executed_twice").size() == 2);
}

TEST_CASE("an alias whose submodules were never imported through it is no finding", "[partial-alias]")
{
    testing::JournalBuilder b;
    b.extension_import("v.deep_gemm._C", "/s/v/deep_gemm/_C.so", {1, 1});
    CHECK(analysis::analyze(analysis::build_model(with_alias(b, "deep_gemm", "v.deep_gemm"))).empty());
}

TEST_CASE("copies of one extension are matched by content through the injected hasher", "[copies]")
{
    testing::JournalBuilder b;
    b.extension_import("deep_gemm._C", "/site/deep_gemm/_C.so", {1, 1});
    b.extension_import("vendored.dg._C", "/app/vendored/dg/_C.so", {1, 2});
    analysis::AnalysisOptions options;
    options.hash_file = [](const std::string&) { return std::optional<std::string>("same"); };
    const auto findings = analysis::analyze(analysis::build_model(b.contents()), options);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].kind == "duplicate-extension-copy");
    CHECK(nlohmann::json(findings[0].evidence).at("matched_by") == "sha256");
    CHECK(analysis::analyze(analysis::build_model(b.contents())).empty()); // no hasher, different paths
}

TEST_CASE("only extensions loaded under a repeated last name are hashed", "[copies]")
{
    // Copies of one extension share their PyInit_<last name>; hashing every loaded extension would
    // cost every run the time to read them all.
    testing::JournalBuilder b;
    b.extension_import("deep_gemm._C", "/site/deep_gemm/_C.so", {1, 1});
    b.extension_import("_json", "/usr/lib/python3.11/lib-dynload/_json.so", {1, 3});
    b.extension_import("vendored.dg._C", "/app/vendored/dg/_C.so", {1, 2});
    std::vector<std::string> hashed;
    analysis::AnalysisOptions options;
    options.hash_file = [&](const std::string& path) {
        hashed.push_back(path);
        return std::optional<std::string>(path);
    };
    CHECK(analysis::analyze(analysis::build_model(b.contents()), options).empty());
    CHECK(hashed == std::vector<std::string>{"/site/deep_gemm/_C.so", "/app/vendored/dg/_C.so"});
}

TEST_CASE("the bundled catalogue parses and matches the vLLM case only", "[known-issues]")
{
    const auto catalogue = analysis::KnownIssueCatalogue::load(IMPORTSCOPE_SOURCE_DIR "/data/known-issues.json");
    CHECK(catalogue.size() >= 5);
    analysis::Finding f;
    f.kind = "duplicate-extension-init";
    f.module_names = {"vllm.third_party.deep_gemm._C", "deep_gemm._C"};
    f.file = "/venv/lib/python3.12/site-packages/vllm/third_party/deep_gemm/_C.abi3.so";
    const auto vllm = catalogue.match(f);
    REQUIRE(vllm);
    CHECK(vllm->id == "vllm#59904");
    REQUIRE(vllm->fixed_in);
    CHECK(vllm->fixed_in->pull == "vllm-project/vllm#48962");
    CHECK(vllm->links.at(0) == "https://github.com/vllm-project/vllm/issues/59904");
    // Written in a finding as the catalogue has it, less its signature, "fixed_in" null when none.
    f.known_issue = vllm;
    const nlohmann::json written = f;
    CHECK(written.at("known_issue").at("fixed_in").at("merged") == "2026-10-06");
    CHECK_FALSE(written.at("known_issue").contains("match"));
    f.file = "/elsewhere/deep_gemm/_C.so";
    CHECK_FALSE(catalogue.match(f));

    // A build with the fix has a Python _C.py beside its files (vLLM 0.34.0's loads its library
    // through torch.ops.load_library): the alias there is no instance of the issue.
    analysis::Finding alias;
    alias.kind = "partial-alias";
    alias.module_names = {"deep_gemm", "vllm.third_party.deep_gemm"};
    alias.file = "/venv/site-packages/vllm/third_party/deep_gemm/__init__.py";
    std::vector<std::string> asked;
    std::set<std::string> present;
    const analysis::FileExists exists = [&](const std::string& path) {
        asked.push_back(path);
        return present.count(path) > 0;
    };
    CHECK(catalogue.match(alias, exists));
    CHECK(asked == std::vector<std::string>{"/venv/site-packages/vllm/third_party/deep_gemm/_C.py"});
    present.insert("/venv/site-packages/vllm/third_party/deep_gemm/_C.py");
    CHECK_FALSE(catalogue.match(alias, exists));
    CHECK(catalogue.match(alias)); // nothing to look with: taken as affected
    f.file = "/venv/site-packages/vllm/third_party/deep_gemm/_C_extension.abi3.so";
    CHECK_FALSE(catalogue.match(f, exists));

    analysis::Finding conflict;
    conflict.kind = "native-type-conflict";
    conflict.module_names = {"paddle.base.libpaddle", "torch._C"};
    conflict.evidence = analysis::evidence_of(conflict.kind, {{"type_name", "_gpuDeviceProperties"}});
    const auto paddle = catalogue.match(conflict);
    REQUIRE(paddle);
    CHECK(paddle->id == "Paddle#56812");
    CHECK_FALSE(paddle->fixed_in);
    conflict.known_issue = paddle;
    CHECK(nlohmann::json(conflict).at("known_issue").at("fixed_in").is_null());
}

TEST_CASE("an entry with a call site module matches a file run again from that module alone", "[known-issues]")
{
    const auto catalogue = analysis::KnownIssueCatalogue::load(IMPORTSCOPE_SOURCE_DIR "/data/known-issues.json");
    // pytest's importlib mode before 7.4.2: tests/__init__.py run as tests and as tests.__init__,
    // the second by _pytest.pathlib.import_path.
    analysis::Finding f;
    f.kind = "duplicate-source-exec";
    f.module_names = {"tests", "tests.__init__"};
    f.file = "/work/tests/__init__.py";
    const auto executions = [](const std::string& caller) {
        return nlohmann::json{{"executions",
                               {{{"module", "tests"}, {"status", "ok"}, {"stack", nlohmann::json::array()}},
                                {{"module", "tests.__init__"},
                                 {"status", "ok"},
                                 {"stack", nlohmann::json::array()},
                                 {"call_site",
                                  {{"file", "/x.py"}, {"function", "f"}, {"line", 1}, {"module", caller}}}}}}};
    };
    f.evidence = analysis::evidence_of(f.kind, executions("_pytest.pathlib"));
    const auto pytest = catalogue.match(f);
    REQUIRE(pytest);
    CHECK(pytest->id == "pytest#11306");
    // The same names run again by some other code (an explicit `import tests.__init__`) are not
    // pytest's doing; nor is a finding without call sites.
    f.evidence = analysis::evidence_of(f.kind, executions("app.loader"));
    CHECK_FALSE(catalogue.match(f));
    f.evidence = analysis::evidence_of(f.kind, {{"executions", nlohmann::json::array()}});
    CHECK_FALSE(catalogue.match(f));
}

TEST_CASE("a malformed catalogue is refused with the reason", "[known-issues]")
{
    CHECK_THROWS_WITH(analysis::KnownIssueCatalogue::parse(nlohmann::json::array()),
                      Catch::Contains("not an importscope.known-issues/1"));
    const auto bad_pattern = nlohmann::json::parse(R"({"schema":"importscope.known-issues/1","issues":[
        {"id":"x","title":"t","match":{"kind":["k"],"file":"(unclosed"},"explanation":"e","advice":[],"links":[]}]})");
    CHECK_THROWS_WITH(analysis::KnownIssueCatalogue::parse(bad_pattern), Catch::Contains("bad pattern"));
    const auto a_path = nlohmann::json::parse(R"({"schema":"importscope.known-issues/1","issues":[
        {"id":"x","title":"t","match":{"kind":["k"],"fixed_if_beside":"../_C.py"},"explanation":"e","advice":[],"links":[]}]})");
    CHECK_THROWS_WITH(analysis::KnownIssueCatalogue::parse(a_path), Catch::Contains("names a file, not a path"));
}

TEST_CASE("the catalogue is asked for once, and only when there is a finding to match", "[known-issues]")
{
    const auto catalogue = analysis::KnownIssueCatalogue::load(IMPORTSCOPE_SOURCE_DIR "/data/known-issues.json");
    int asked = 0;
    analysis::AnalysisOptions options;
    options.known_issues = [&]() {
        ++asked;
        return &catalogue;
    };
    testing::JournalBuilder clean;
    clean.extension_import("deep_gemm._C", "/site/deep_gemm/_C.so", {1, 1});
    CHECK(analysis::analyze(analysis::build_model(clean.contents()), options).empty());
    CHECK(asked == 0);

    testing::JournalBuilder twice;
    twice.extension_import("vllm.third_party.deep_gemm._C", "/v/vllm/third_party/deep_gemm/_C.so", {1, 1});
    twice.extension_import("deep_gemm._C", "/v/vllm/third_party/deep_gemm/_C.so", {1, 1});
    const auto findings = analysis::analyze(analysis::build_model(twice.contents()), options);
    CHECK(asked == 1);
    REQUIRE_FALSE(findings.empty());
    REQUIRE(findings[0].known_issue);
    CHECK(findings[0].known_issue->id == "vllm#59904");
}

TEST_CASE("pybind11's refusal to register a type twice names the type", "[native-type-conflict]")
{
    using journal::already_registered_type;
    CHECK(already_registered_type("ImportError: generic_type: type \"Runtime\" is already registered!") == "Runtime");
    CHECK(already_registered_type("generic_type: type \"a.b\" is already registered!\n(more)") == "a.b");
    // A quote in the wrong place, an empty name or another message are not it.
    CHECK_FALSE(already_registered_type("generic_type: type \"\" is already registered!"));
    CHECK_FALSE(already_registered_type("generic_type: type \"Runtime\" is not registered"));
    CHECK_FALSE(already_registered_type("generic_type: type \"Runtime"));
    CHECK_FALSE(already_registered_type("type \"Runtime\" is already registered!"));
    CHECK(already_registered_type("generic_type: type \"x generic_type: type \"Y\" is already registered!") == "Y");
}

TEST_CASE("a package importable from two places on sys.path is a warning that names which one wins",
          "[installations]")
{
    testing::JournalBuilder b;
    b.installation("deep_gemm", "/work/deep_gemm/__init__.py",
                   {"/site/deep_gemm/__init__.py", "/site-link/../site/deep_gemm/__init__.py"});
    b.installation("requests", "/site/requests/__init__.py", {"/site/requests/__init__.py"});
    const auto findings = analysis::find_multiple_installations(analysis::build_model(b.contents()));
    REQUIRE(findings.size() == 1); // requests: one directory, reached twice
    CHECK(nlohmann::json(findings[0].evidence)["importable_from"] == "/work/deep_gemm");
    CHECK(nlohmann::json(findings[0].evidence)["shadowed"] == nlohmann::json{"/site/deep_gemm"});
    CHECK(findings[0].message.find("/work/deep_gemm, the one imported (first on sys.path), shadows /site/deep_gemm") !=
          std::string::npos);
    CHECK(nlohmann::json(findings[0].evidence)["places"][1]["distribution"].is_null()); // no lookup given

    // With the distributions' metadata, each place names the one installed there.
    const analysis::DistributionLookup distributions = [](const std::string& origin) {
        return origin.starts_with("/site/") ? std::vector<analysis::Distribution>{{"deep-gemm", "2.1.0"}}
                                            : std::vector<analysis::Distribution>{};
    };
    const auto named = analysis::find_multiple_installations(analysis::build_model(b.contents()), distributions);
    REQUIRE(named.size() == 1);
    CHECK(named[0].message.find("shadows /site/deep_gemm (deep-gemm 2.1.0)") != std::string::npos);
    CHECK(
        nlohmann::json(named[0].evidence)["places"][0]["distribution"].is_null()); // the copy in /work has no metadata
    CHECK(nlohmann::json(named[0].evidence)["places"][1]["distribution"] ==
          nlohmann::json{{"name", "deep-gemm"}, {"version", "2.1.0"}});
}

TEST_CASE("a package that two distributions claim in one directory is one finding naming both", "[installations]")
{
    testing::JournalBuilder b;
    b.installation("cv2", "/site/cv2/__init__.py", {});
    b.installation("numpy", "/site/numpy/__init__.py", {});
    const analysis::DistributionLookup distributions = [](const std::string& origin) {
        if (origin == "/site/cv2/__init__.py")
            return std::vector<analysis::Distribution>{{"opencv-python", "4.8.1"}, {"opencv-python-headless", "4.8.1"}};
        return std::vector<analysis::Distribution>{{"numpy", "1.24.2"}};
    };
    const auto findings = analysis::find_multiple_installations(analysis::build_model(b.contents()), distributions);
    REQUIRE(findings.size() == 1); // numpy has one owner
    const analysis::Finding& f = findings[0];
    CHECK(f.kind == "multiple-installations");
    CHECK(f.severity == analysis::Severity::warning);
    CHECK(f.module_names == std::vector<std::string>{"cv2"});
    CHECK(f.message == "cv2 at /site/cv2 is installed by 2 distributions in one directory: opencv-python 4.8.1, "
                       "opencv-python-headless 4.8.1");
    CHECK(nlohmann::json(f.evidence)["distributions"][1] ==
          nlohmann::json{{"name", "opencv-python-headless"}, {"version", "4.8.1"}});
    CHECK(f.advice.find("pip uninstall opencv-python opencv-python-headless") != std::string::npos);
}

TEST_CASE("a vendored copy is compared with the installation of a --match name only", "[installations]")
{
    testing::JournalBuilder b;
    b.installation("deep_gemm", "/site/deep_gemm/__init__.py", {}, true);
    b.installation("numpy", "/site/numpy/__init__.py", {}, false); // looked up as a top-level import
    b.end(b.begin("vllm.third_party.deep_gemm", "source", "/v/third_party/deep_gemm/__init__.py"));
    b.end(b.begin("pandas.compat.numpy", "source", "/p/compat/numpy/__init__.py")); // a subpackage, no copy
    const analysis::DistributionLookup distributions = [](const std::string& origin) {
        return origin == "/site/deep_gemm/__init__.py" ? std::vector<analysis::Distribution>{{"deep-gemm", "2.1.0"}}
                                                       : std::vector<analysis::Distribution>{};
    };
    const auto findings = analysis::find_multiple_installations(analysis::build_model(b.contents()), distributions);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].module_names == std::vector<std::string>{"deep_gemm", "vllm.third_party.deep_gemm"});
    CHECK(findings[0].message.find("/site/deep_gemm (deep-gemm 2.1.0)") != std::string::npos);
    CHECK(findings[0].advice.find("pip uninstall deep-gemm") != std::string::npos); // the distribution's name
}

TEST_CASE("a source file a process runs under two names is one finding, its names in their order; a file run "
          "once in each of two processes is none",
          "[diagnosis]")
{
    testing::JournalBuilder main(100);
    main.end(main.begin("v.dg.utils", "source", "/s/v/dg/utils.py", journal::FileIdentity{1, 5}));
    main.end(main.begin("other", "source", "/s/other.py", journal::FileIdentity{1, 6}));
    main.end(main.begin("shared", "source", "/s/shared.py", journal::FileIdentity{1, 7}));
    main.end(main.begin("dg.utils", "source", "/s/v/dg/utils.py", journal::FileIdentity{1, 5}));
    main.end(main.begin("dg2.utils", "source", "/s/v/dg/utils.py", journal::FileIdentity{1, 5}));
    main.end(main.begin("late.other", "source", "/s/other2.py", journal::FileIdentity{2, 6})); // another device
    testing::JournalBuilder child(200);
    child.process(200, 100, "spawn");
    child.end(child.begin("shared", "source", "/s/shared.py", journal::FileIdentity{1, 7}));
    const auto model = analysis::build_model(
        std::vector<journal::JournalContents>{main.contents("journal-100-0.isj"), child.contents("journal-200-0.isj")});

    const auto findings = analysis::find_duplicate_source_execs(model);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].pid == 100);
    CHECK(findings[0].file == "/s/v/dg/utils.py");
    CHECK(findings[0].module_names == std::vector<std::string>{"v.dg.utils", "dg.utils", "dg2.utils"});
}
