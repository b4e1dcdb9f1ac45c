#include "importscope/analysis/root_causes.hpp"
#include "importscope/report/compare.hpp"
#include "importscope/report/merge.hpp"

#include <catch2/catch.hpp>

using namespace importscope;
using analysis::Finding;
using analysis::Severity;

namespace {

Finding finding(std::string kind, Severity severity, int pid, std::vector<std::string> names, std::string file,
                const nlohmann::json& evidence = nlohmann::json::object())
{
    Finding f;
    f.kind = std::move(kind);
    f.severity = severity;
    f.pid = pid;
    f.module_names = std::move(names);
    f.file = std::move(file);
    f.message = "m";
    f.evidence = importscope::analysis::evidence_of(f.kind, evidence);
    return f;
}

Finding alias_duplicate(int pid)
{
    return finding("duplicate-extension-init", Severity::error, pid, {"v.dg._C", "dg._C"}, "/v/dg/_C.so",
                   {{"cause", {{"kind", "sys.modules alias"}, {"key", "dg"}, {"module", "v.dg"}}}});
}

} // namespace

TEST_CASE("findings of one alias are one cause, in every process that went through it", "[causes]")
{
    Finding partial = finding("partial-alias", Severity::error, 10, {"dg", "v.dg"}, "/v/dg/__init__.py",
                              {{"alias", "dg"}, {"original", "v.dg"}, {"alias_first_used_at", {{{"file", "/t.py"}}}}});
    partial.advice = "alias every submodule";
    const std::vector<Finding> findings = {
        alias_duplicate(10),
        alias_duplicate(11),
        partial,
        finding("duplicate-source-exec", Severity::warning, 10, {"v.dg.utils", "dg.utils"}, "/v/dg/utils.py"),
        // Not through the alias: a name that only starts like it, and another process.
        finding("duplicate-source-exec", Severity::warning, 10, {"dgx.a", "b"}, "/o/a.py"),
        finding("duplicate-source-exec", Severity::warning, 12, {"v.dg.utils", "dg.utils"}, "/v/dg/utils.py"),
        finding("native-type-conflict", Severity::error, 11, {"dg._C"}, "/v/dg/_C.so", {{"failed_module", "dg._C"}}),
    };
    const auto causes = analysis::find_root_causes(findings);
    REQUIRE(causes.size() == 1);
    const auto& cause = causes[0];
    CHECK(cause.id == "alias:dg");
    CHECK(cause.kind == "sys.modules alias");
    CHECK(cause.severity == Severity::error);
    CHECK(cause.pids == std::vector<int>{10, 11});
    CHECK(cause.findings == std::vector<std::size_t>{0, 1, 2, 3, 6});
    // The partial alias describes the alias best: its advice and where it was first used.
    CHECK(cause.advice == "alias every submodule");
    CHECK(nlohmann::json(cause.evidence).at("first_seen_at")[0].at("file") == "/t.py");
    CHECK(cause.message.find("sys.modules[\"dg\"] is v.dg") == 0);
}

TEST_CASE("a package directory on sys.path explains the copies of its own modules only", "[causes]")
{
    const nlohmann::json entry = {{"cause",
                                   {{"kind", "package directory on sys.path"},
                                    {"entry", "/site/lxml"},
                                    {"package", "lxml"},
                                    {"added_by", {{"path", "/site/lxml"}, {"origin", ".pth file"}, {"pth_file", "/site/x.pth"}}}}}};
    Finding duplicate =
        finding("duplicate-extension-init", Severity::warning, 5, {"lxml.etree", "etree"}, "/site/lxml/etree.so", entry);
    duplicate.advice = "delete the line of /site/x.pth";
    const std::vector<Finding> findings = {
        duplicate,
        finding("duplicate-source-exec", Severity::warning, 5, {"lxml.html", "html"}, "/site/lxml/html/__init__.py"),
        finding("duplicate-source-exec", Severity::warning, 5, {"a.b", "c"}, "/site/lxml/x.py"),  // no tail
        finding("duplicate-source-exec", Severity::warning, 5, {"p.cfg", "cfg"}, "/site/lxmlx/cfg.py"), // beside
        finding("native-type-conflict", Severity::error, 5, {"etree"}, "/site/lxml/etree.so",
                {{"relation", "same-file"}}),
        finding("duplicate-extension-init", Severity::warning, 5, {"a._m", "b._m"}, "/o/_m.so",
                {{"cause", {{"kind", "unknown"}}}}),
    };
    const auto causes = analysis::find_root_causes(findings);
    REQUIRE(causes.size() == 1);
    CHECK(causes[0].id == "sys.path:/site/lxml");
    CHECK(causes[0].findings == std::vector<std::size_t>{0, 1, 4});
    CHECK(causes[0].severity == Severity::error);
    CHECK(causes[0].advice == "delete the line of /site/x.pth"); // the duplicate's, which knows the origin
    CHECK(causes[0].message.ends_with("(it is there as a line of /site/x.pth)"));
}

TEST_CASE("findings with no cause they name are left alone", "[causes]")
{
    CHECK(analysis::find_root_causes({}).empty());
    CHECK(analysis::find_root_causes({finding("duplicate-source-exec", Severity::warning, 1, {"a", "b.a"}, "/a.py")})
              .empty());
}

TEST_CASE("merged reports keep one cause per id, its findings and processes counted together", "[causes]")
{
    const auto report = [](const std::string& host, int pid, Severity severity) {
        report::Document document;
        document.schema = "importscope.report/2";
        document.run.emplace().host = host;
        report::ReportedCause cause;
        cause.id = "alias:dg";
        cause.severity = severity;
        cause.pids = {pid};
        cause.findings = 2;
        document.causes = {cause};
        return document;
    };
    const auto merged = report::merge_reports({report("a", 7, Severity::warning), report("b", 3, Severity::error)});
    REQUIRE(merged.causes.size() == 1);
    CHECK(merged.causes[0].findings == 4);
    CHECK(merged.causes[0].severity == Severity::error);
    CHECK(merged.causes[0].pids == std::vector<int>{3, 7});
}
