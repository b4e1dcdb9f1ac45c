#include "importscope/analysis/evidence.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/report/document.hpp"
#include "importscope/util/json_fields.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <variant>

using namespace importscope;
using nlohmann::json;

namespace tagged_record {

/// A member whose form depends on the record's "shape": a number, or any JSON kept as text.
struct Value {
    int number = 0;
    std::string text;
};

void read_tagged(const json& value, Value& out, const std::string& shape, const std::string& path)
{
    if (shape != "number") {
        out.text = value.dump();
        return;
    }
    if (!value.is_number_integer())
        throw std::invalid_argument(path + " is not a number");
    out.number = value.get<int>();
}

void to_json(json& j, const Value& value)
{
    j = value.text.empty() ? json(value.number) : json::parse(value.text);
}

struct Record {
    std::string shape;
    Value value;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("shape", e.shape);
        f.tagged("value", e.value, e.shape);
    }
};

} // namespace tagged_record

namespace {

const json k_frame = {{"file", "/a/u.py"}, {"function", "f"}, {"line", 3}, {"module", "a.u"}};

/// A finding of `kind` with `evidence`, as a report holds it.
json finding_json(const std::string& kind, const json& evidence)
{
    return {{"kind", kind},         {"severity", "error"},   {"pid", 7},           {"module_names", {"a._C", "b._C"}},
            {"file", "/a/_C.so"},   {"message", "m"},        {"explanation", "e"}, {"advice", "f"},
            {"evidence", evidence}, {"known_issue", nullptr}};
}

/// Reads a finding and writes it back: what the report had, with the evidence typed as `E`.
template <typename E>
void check_round_trip(const std::string& kind, const json& evidence)
{
    const json written = finding_json(kind, evidence);
    const auto read = written.get<analysis::Finding>();
    CHECK(std::holds_alternative<E>(read.evidence));
    CHECK(json(read) == written);
}

} // namespace

TEST_CASE("a member typed by a field read before it is read and written by that field", "[json_fields]")
{
    using tagged_record::Record;
    Record number;
    json_fields::from_json(json{{"shape", "number"}, {"value", 4}}, number);
    CHECK(number.value.number == 4);
    Record text;
    json_fields::from_json(json{{"shape", "text"}, {"value", {{"a", 1}}}}, text);
    CHECK(text.value.text == R"({"a":1})");
    json written;
    json_fields::to_json(written, text);
    CHECK(written == json{{"shape", "text"}, {"value", {{"a", 1}}}});

    CHECK_THROWS_WITH(json_fields::from_json(json{{"shape", "number"}, {"value", "x"}}, number),
                      "value is not a number");
    CHECK_THROWS_WITH(json_fields::from_json(json{{"shape", "number"}}, number), "it has no \"value\"");
}

TEST_CASE("each kind's evidence is read into its record and written back as it was", "[evidence]")
{
    SECTION("duplicate-extension-init, with each kind of cause")
    {
        const json inits = {{{"module", "a._C"},
                             {"order", 33},
                             {"status", "ok"},
                             {"origin", "/a/_C.so"},
                             {"stack", {k_frame}},
                             {"call_site", k_frame}},
                            {{"module", "_C"},
                             {"order", 40},
                             {"status", "error"},
                             {"origin", "/a/_C.so"},
                             {"stack", json::array()},
                             {"error", {{"type", "ImportError"}, {"message", "m"}, {"traceback", ""}}},
                             {"existing_module", "a._C"}}};
        const json reads = {
            {{"name", "X"}, {"set", true}, {"value", "1"}, {"file", "/a/u.py"}, {"line", 2}, {"on_import_path", true}},
            {{"name", "Y"},
             {"set", false},
             {"value", nullptr},
             {"file", "/a/u.py"},
             {"line", 5},
             {"on_import_path", false}}};
        for (const json& cause :
             {json{{"kind", "sys.modules alias"},
                   {"key", "b"},
                   {"module", "a"},
                   {"first_seen_at", {k_frame}},
                   {"set_at", {k_frame}}},
              json{{"kind", "sys.modules alias"},
                   {"key", "b"},
                   {"module", "a"},
                   {"first_seen_at", json::array()},
                   {"set_in_code", {k_frame}}},
              json{{"kind", "load by path"},
                   {"module", "x"},
                   {"loaded_first_as", "a._C"},
                   {"at", {{"file", "/l.py"}, {"line", 4}}}},
              json{{"kind", "load by path"}, {"module", "x"}, {"loaded_first_as", "a._C"}},
              json{{"kind", "package directory on sys.path"},
                   {"entry", "/s/a"},
                   {"package", "a"},
                   {"added_by", {{"path", "/s/a"}, {"origin", "program"}, {"before_import_at", {k_frame}}}}},
              json{{"kind", "package directory on sys.path"},
                   {"entry", "/s/a"},
                   {"package", "a"},
                   {"added_by", {{"path", "/s/a"}, {"origin", ".pth file"}, {"pth_file", "/s/x.pth"}}}},
              json{{"kind", "unknown"}}})
            check_round_trip<analysis::DuplicateInitEvidence>("duplicate-extension-init",
                                                              {{"initializations", inits},
                                                               {"cause", cause},
                                                               {"file_identity", {{"dev", 2049}, {"ino", 7}}},
                                                               {"binding", "pybind11"},
                                                               {"environment_read", reads}});
        check_round_trip<analysis::DuplicateInitEvidence>(
            "duplicate-extension-init", {{"initializations", inits}, {"cause", {{"kind", "unknown"}}}});
    }
    SECTION("partial-alias, a run's and a scan's")
    {
        check_round_trip<analysis::PartialAliasEvidence>(
            "partial-alias",
            {{"alias", "b"},
             {"original", "a"},
             {"executed_twice",
              {{{"alias_name", "b.u"}, {"original_name", "a.u"}, {"file", "/a/u.py"}, {"status", "ok"}},
               {{"alias_name", "b._C"},
                {"original_name", "a._C"},
                {"file", "/a/_C.so"},
                {"status", "ok"},
                {"gave_back", "a._C"}}}},
             {"nothing_ran_twice", false},
             {"alias_first_used_at", {k_frame}},
             {"alias_set_in_code", {k_frame}}});
        check_round_trip<analysis::PartialAliasEvidence>( // a report from before nothing_ran_twice
            "partial-alias",
            {{"alias", "b"}, {"original", "a"}, {"executed_twice", json::array()}, {"alias_first_used_at", {k_frame}}});
        check_round_trip<analysis::PartialAliasEvidence>(
            "partial-alias",
            {{"static", {{"seen", {{{"file", "/c.py"}, {"line", 16}}}}}},
             {"alias", "b"},
             {"value", "a"},
             {"targets", {"a"}},
             {"target_file", "/a/__init__.py"},
             {"set_at", {{{"file", "/c.py"}, {"line", 16}, {"function", ""}}}},
             {"importers",
              {{{"file", "/u.py"},
                {"line", 1},
                {"module", "b.u"},
                {"executes_again",
                 {{{"module", "b.u"}, {"file", "/a/u.py"}},
                  {{"module", "b._C"}, {"file", "/a/_C.so"}, {"imported_at", {{"file", "/a/u.py"}, {"line", 2}}}}}}}}},
             {"submodules_aliased_at",
              {{{"file", "/c.py"}, {"line", 20}, {"only", {{"condition", "X"}, {"line", 19}}}},
               {{"file", "/d.py"}, {"line", 2}}}}});
    }
    SECTION("duplicate-source-exec")
    {
        check_round_trip<analysis::DuplicateSourceExecEvidence>(
            "duplicate-source-exec",
            {{"executions",
              {{{"module", "a.u"}, {"status", "ok"}, {"stack", {k_frame}}, {"call_site", k_frame}},
               {{"module", "u"}, {"status", "incomplete"}, {"stack", json::array()}}}}});
    }
    SECTION("native-type-conflict, pybind11's and nanobind's")
    {
        check_round_trip<analysis::NativeTypeConflictEvidence>(
            "native-type-conflict", {{"type_name", "T"},
                                     {"binding", "pybind11"},
                                     {"error", {{"type", "ImportError"}, {"message", "m"}, {"traceback", "tb"}}},
                                     {"warning", nullptr},
                                     {"failed_module", "b._C"},
                                     {"owners",
                                      {{{"module", "a._C"},
                                        {"file", "/a/_C.so"},
                                        {"type", "a.T"},
                                        {"pybind11", true},
                                        {"relation", "same-file"}}}},
                                     {"relation", "same-file"},
                                     {"stack", {k_frame}}});
        check_round_trip<analysis::NativeTypeConflictEvidence>("native-type-conflict", {{"type_name", "T"},
                                                                                        {"binding", "nanobind"},
                                                                                        {"error", nullptr},
                                                                                        {"warning", "w"},
                                                                                        {"failed_module", "b._C"},
                                                                                        {"owners", json::array()},
                                                                                        {"relation", nullptr},
                                                                                        {"stack", json::array()}});
    }
    SECTION("duplicate-extension-copy, a run's and a scan's")
    {
        check_round_trip<analysis::DuplicateCopyEvidence>(
            "duplicate-extension-copy", {{"copies",
                                          {{{"module", "a._C"}, {"file", "/a/_C.so"}, {"status", "ok"}},
                                           {{"module", "v.a._C"}, {"file", "/v/a/_C.so"}, {"status", "unknown"}}}},
                                         {"matched_by", "sha256"},
                                         {"sha256", "ab"}});
        check_round_trip<analysis::DuplicateCopyEvidence>(
            "duplicate-extension-copy",
            {{"static", {{"seen", {{{"file", "/a/_C.so"}, {"line", 0}}}}}},
             {"copies",
              {{{"module", "a._C"}, {"file", "/a/_C.so"}, {"distributions", {{{"name", "a"}, {"version", "1"}}}}},
               {{"module", "v.a._C"}, {"file", "/v/a/_C.so"}, {"distributions", json::array()}}}},
             {"matched_by", "package-relative path"}});
    }
    SECTION("multiple-installations, each of its shapes")
    {
        const json a1 = {{"name", "a"}, {"version", "1"}};
        check_round_trip<analysis::MultipleInstallationsEvidence>(
            "multiple-installations", {{"name", "a"},
                                       {"importable_from", "/w/a"},
                                       {"shadowed", {"/s/a"}},
                                       {"places",
                                        {{{"place", "/w/a"}, {"origin", "/w/a/__init__.py"}, {"distribution", nullptr}},
                                         {{"place", "/s/a"}, {"origin", "/s/a/__init__.py"}, {"distribution", a1}}}},
                                       {"static", {{"seen", {{{"file", "/w/a/__init__.py"}, {"line", 0}}}}}}});
        check_round_trip<analysis::MultipleInstallationsEvidence>(
            "multiple-installations", {{"name", "cv2"},
                                       {"importable_from", "/s/cv2"},
                                       {"distributions", {a1, {{"name", "b"}, {"version", "2"}}}}});
        check_round_trip<analysis::MultipleInstallationsEvidence>(
            "multiple-installations",
            {{"name", "a"}, {"importable_from", "/s"}, {"distribution", nullptr}, {"also_loaded_from", {"/v"}}});
        check_round_trip<analysis::MultipleInstallationsEvidence>(
            "multiple-installations",
            {{"name", "a"}, {"importable_from", "/s"}, {"distribution", a1}, {"also_loaded_from", {"/v"}}});
    }
    SECTION("extension-load-failed, a load that raised and a build for other interpreters")
    {
        check_round_trip<analysis::LoadFailedEvidence>("extension-load-failed",
                                                       {{"reason", "missing-library"},
                                                        {"module", "a._C"},
                                                        {"error", {{"type", "ImportError"}, {"message", "m"}}},
                                                        {"import_site", k_frame},
                                                        {"caught_at", k_frame}});
        check_round_trip<analysis::LoadFailedEvidence>("extension-load-failed",
                                                       {{"reason", "no-build-for-this-interpreter"},
                                                        {"module", "a._C"},
                                                        {"files", {"/a/_C.cpython-312-x86_64-linux-gnu.so"}},
                                                        {"suffixes", {".cpython-311-x86_64-linux-gnu.so", ".so"}},
                                                        {"import_site", nullptr},
                                                        {"caught_at", nullptr}});
    }
    SECTION("package-directory-on-sys-path")
    {
        check_round_trip<analysis::PackageDirectoryEvidence>(
            "package-directory-on-sys-path", {{"static", {{"seen", {{{"file", "/s/x.pth"}, {"line", 1}}}}}},
                                              {"entry", "/s/a"},
                                              {"origin", ".pth"},
                                              {"outer_entry", "/s"},
                                              {"package", "a"},
                                              {"extensions", {"a._C"}}});
    }
}

TEST_CASE("an unknown kind, an unknown cause and unknown keys are written back as they were read", "[evidence]")
{
    // A kind from another importscope: its evidence kept whole, whatever its keys.
    check_round_trip<analysis::OtherEvidence>(
        "future-kind", {{"anything", {1, 2}}, {"stack", {k_frame}}, {"nested", {{"a", nullptr}}}});
    // Keys this importscope does not know, at the top and inside the records of a known kind.
    json init = {{"module", "a._C"},       {"order", 3},         {"status", "ok"}, {"origin", "/a/_C.so"},
                 {"stack", json::array()}, {"new_field", {1, 2}}};
    check_round_trip<analysis::DuplicateInitEvidence>("duplicate-extension-init", {{"initializations", {init}},
                                                                                   {"cause",
                                                                                    {{"kind", "sys.modules alias"},
                                                                                     {"key", "b"},
                                                                                     {"module", "a"},
                                                                                     {"first_seen_at", json::array()},
                                                                                     {"confidence", "high"}}},
                                                                                   {"new_summary", "x"}});
    check_round_trip<analysis::DuplicateInitEvidence>(
        "duplicate-extension-init",
        {{"initializations", {init}}, {"cause", {{"kind", "a cause to come"}, {"whatever", {{"deep", true}}}}}});

    const json cause = {{"id", "x:1"},
                        {"kind", "a cause to come"},
                        {"severity", "warning"},
                        {"pids", {1}},
                        {"message", "m"},
                        {"advice", "a"},
                        {"evidence", {{"kind", "a cause to come"}, {"n", 1}}},
                        {"findings", 1}};
    const auto read = cause.get<report::ReportedCause>();
    CHECK(std::holds_alternative<analysis::OtherCause>(read.evidence));
    CHECK(json(read) == cause);
}

TEST_CASE("an environment read goes to every kind's evidence, and to an unknown kind's as JSON", "[evidence]")
{
    const analysis::EnvironmentReadEvidence read{"X", true, "1", "/a/u.py", 2, true, {}};
    for (const std::string kind :
         {"duplicate-extension-init", "partial-alias", "native-type-conflict", "future-kind"}) {
        analysis::Evidence evidence = analysis::evidence_of(kind, json::object());
        analysis::set_environment_read(evidence, {read});
        const std::vector<analysis::EnvironmentReadEvidence> reads = analysis::environment_read_of(evidence);
        REQUIRE(reads.size() == 1);
        CHECK(reads[0].name == "X");
        CHECK(json(evidence).at("environment_read") == json::array({{{"name", "X"},
                                                                     {"set", true},
                                                                     {"value", "1"},
                                                                     {"file", "/a/u.py"},
                                                                     {"line", 2},
                                                                     {"on_import_path", true}}}));
    }
}

TEST_CASE("the import path of an evidence: the files of its frames and its last load", "[evidence]")
{
    const json inits = {
        {{"module", "a._C"}, {"order", 33}, {"stack", {k_frame}}},
        {{"module", "b._C"}, {"order", 40}, {"stack", json::array()}, {"call_site", {{"file", "/b.py"}, {"line", 1}}}}};
    const json cause = {{"kind", "sys.modules alias"},
                        {"key", "b"},
                        {"module", "a"},
                        {"first_seen_at", {{{"file", "/main.py"}, {"line", 9}}}}};
    const analysis::Evidence init =
        analysis::evidence_of("duplicate-extension-init", {{"initializations", inits}, {"cause", cause}});
    const analysis::ImportPath path = analysis::import_path_of(init);
    CHECK(path.files == std::set<std::string>{"/a/u.py", "/b.py", "/main.py"});
    CHECK(path.last_load == 40);

    // An unknown kind's: every object with a file and a line, and the latest order.
    const analysis::ImportPath other = analysis::import_path_of(analysis::evidence_of(
        "future-kind", {{"x", {{{"file", "/x.py"}, {"line", 1}, {"order", 5U}}}}, {"y", {{"file", "/no-line.py"}}}}));
    CHECK(other.files == std::set<std::string>{"/x.py"});
    CHECK(other.last_load == 5);
}
