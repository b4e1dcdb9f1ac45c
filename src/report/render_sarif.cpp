#include "importscope/report/render.hpp"

#include "importscope/analysis/finding.hpp"
#include "importscope/version.hpp"
#include "importscope/report/escape.hpp"
#include "report/markdown_text.hpp"
#include "report/sarif_rules.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace importscope::report {

using nlohmann::json;

namespace {

constexpr const char* k_schema_uri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
constexpr const char* k_root = "SRCROOT";
constexpr const char* k_fingerprint_key = "importscope/v1";

/// A path as a URI reference: each byte that is not unreserved, a sub-delimiter, '@' or '/' is
/// percent-encoded (':' too, which would read as a scheme at the start of a relative reference).
std::string percent_encoded(std::string_view path)
{
    constexpr std::string_view k_kept = "-._~!$&'()*+,;=@/";
    std::string out;
    for (const char c : path) {
        const auto byte = static_cast<unsigned char>(c);
        const bool alnum = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || (byte >= '0' && byte <= '9');
        if (alnum || k_kept.find(c) != std::string_view::npos)
            out += c;
        else
            out += fmt::format("%{:02X}", byte);
    }
    return out;
}

/// Paths as SARIF artifact locations: relative to the report's working directory (SRCROOT) when
/// under it, else an absolute file URI.
class UriBase {
public:
    explicit UriBase(std::string directory) : m_directory(std::move(directory))
    {
        while (m_directory.size() > 1 && m_directory.back() == '/')
            m_directory.pop_back();
    }

    json artifact_location(const std::string& path) const
    {
        const std::string prefix = m_directory == "/" ? "/" : m_directory + "/";
        if (!m_directory.empty() && path.size() > prefix.size() && path.starts_with(prefix))
            return {{"uri", percent_encoded(path.substr(prefix.size()))}, {"uriBaseId", k_root}};
        if (path.starts_with("/"))
            return {{"uri", "file://" + percent_encoded(path)}};
        return {{"uri", percent_encoded(path)}}; // --redact-paths made it "~/..."
    }

    /// originalUriBaseIds: where SRCROOT was, when the report names an absolute directory.
    std::optional<json> original_uri_base_ids() const
    {
        if (!m_directory.starts_with("/"))
            return std::nullopt;
        const std::string uri = "file://" + percent_encoded(m_directory == "/" ? "/" : m_directory + "/");
        return json{{k_root, {{"uri", uri}}}};
    }

private:
    std::string m_directory;
};

/// A place a finding names: a file and, when known, a line (0 when not), with what happened there.
struct Place {
    std::string file;
    std::uint64_t line = 0;
    std::string what;
};

/// A line of a file as a place, or nothing when it names no file.
std::optional<Place> place_at(const std::string& file, int line, std::string what)
{
    if (file.empty())
        return std::nullopt;
    return Place{file, static_cast<std::uint64_t>(std::max(line, 0)), std::move(what)};
}

/// The innermost frame of a stack (innermost last) as a place, or nothing.
std::optional<Place> innermost(const std::vector<journal::Frame>& stack, std::string what)
{
    return stack.empty() ? std::nullopt : place_at(stack.back().file, stack.back().line, std::move(what));
}

std::optional<Place> innermost(const std::optional<std::vector<journal::Frame>>& stack, std::string what)
{
    return stack ? innermost(*stack, std::move(what)) : std::nullopt;
}

/// The loads of a duplicate init or a duplicate execution, the one that ran it again first.
template <typename Load>
void add_load_places(std::vector<Place>& places, const std::vector<Load>& loads)
{
    for (auto load = loads.rbegin(); load != loads.rend(); ++load)
        if (load->call_site)
            if (auto place =
                    place_at(load->call_site->file, load->call_site->line, "imported as " + load->module + " here"))
                places.push_back(std::move(*place));
}

/// Every place a finding names, the most useful first: where the scan saw it, else the line that
/// stored the alias, else the import that loaded the module again (or that failed), else where the
/// alias was first used or the failed load's exception caught; and last the finding's file.
std::vector<Place> places_of(const ReportedFinding& finding)
{
    std::vector<Place> places;
    const auto add = [&](std::optional<Place> place) {
        if (place)
            places.push_back(std::move(*place));
    };
    for (const analysis::SourcePlace& seen : analysis::static_seen_of(finding.evidence))
        add(place_at(seen.file, seen.line, "seen by the scan here"));
    const auto* init = std::get_if<analysis::DuplicateInitEvidence>(&finding.evidence);
    const auto* cause = init ? std::get_if<analysis::AliasCause>(&init->cause) : nullptr;
    const auto* alias = std::get_if<analysis::PartialAliasEvidence>(&finding.evidence);
    const char* stored = "the alias is stored in sys.modules here";
    const char* first_used = "the alias is first used here";
    if (cause)
        add(innermost(cause->set_at, stored));
    if (alias)
        add(innermost(alias->alias_set_at, stored));
    if (init)
        add_load_places(places, init->initializations);
    if (const auto* exec = std::get_if<analysis::DuplicateSourceExecEvidence>(&finding.evidence))
        add_load_places(places, exec->executions);
    if (const auto* conflict = std::get_if<analysis::NativeTypeConflictEvidence>(&finding.evidence))
        add(innermost(conflict->stack, "the import is made here"));
    if (alias)
        add(innermost(alias->alias_first_used_at, first_used));
    if (cause)
        add(innermost(cause->first_seen_at, first_used));
    if (const auto* failed = std::get_if<analysis::LoadFailedEvidence>(&finding.evidence); failed && failed->caught_at)
        add(place_at(failed->caught_at->file, failed->caught_at->line, "the exception of the load is caught here"));
    if (!finding.file.empty())
        places.push_back({finding.file, 0, "the file concerned"});
    std::vector<Place> unique;
    for (Place& place : places)
        if (std::none_of(unique.begin(), unique.end(),
                         [&](const Place& p) { return p.file == place.file && p.line == place.line; }))
            unique.push_back(std::move(place));
    return unique;
}

json location_of(const Place& place, const UriBase& base)
{
    json physical = {{"artifactLocation", base.artifact_location(place.file)}};
    if (place.line > 0)
        physical["region"] = {{"startLine", place.line}};
    return {{"physicalLocation", std::move(physical)}, {"message", {{"text", place.what}}}};
}

/// FNV-1a, 64 bits: the same on every machine and build, which std::hash is not.
std::string fingerprint(const std::vector<std::string>& parts)
{
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const std::string& part : parts)
        for (const char c : part + '\0') {
            hash ^= static_cast<unsigned char>(c);
            hash *= 0x100000001b3ULL;
        }
    return fmt::format("{:016x}", hash);
}

/// The finding as Markdown: what happened, why it matters, the fix and the known issue.
std::string markdown_of(const ReportedFinding& finding)
{
    std::string out =
        markdown_text(finding.message) + "\n\n" + markdown_prose(finding.explanation) + "\n\n" + advice_markdown("**Fix:**", finding.advice);
    if (const auto& known = finding.known_issue) {
        out += known->links.empty() ? fmt::format("**Known issue {}:** ", known->id)
                                    : fmt::format("**Known issue [{}]({}):** ", known->id, known->links[0]);
        out += known->title + "\n";
    }
    return out;
}

json properties_of(const ReportedFinding& finding)
{
    json properties = {{"pid", finding.pid},
                       {"module_names", finding.module_names},
                       {"file", finding.file},
                       {"explanation", finding.explanation},
                       {"advice", finding.advice}};
    if (finding.known_issue)
        properties["known_issue"] = finding.known_issue->id;
    if (finding.caused_by)
        properties["caused_by"] = *finding.caused_by;
    if (finding.host)
        properties["host"] = *finding.host;
    return properties;
}

json result_of(const ReportedFinding& finding, const UriBase& base)
{
    json result = {{"ruleId", finding.kind},
                   {"level", finding.severity == analysis::Severity::error ? "error" : "warning"},
                   {"message", {{"text", finding.message}, {"markdown", markdown_of(finding)}}}};
    if (const auto index = sarif_rule_index(finding.kind))
        result["ruleIndex"] = *index;
    const std::vector<Place> places = places_of(finding);
    std::vector<std::string> identity = {finding.kind};
    if (!places.empty()) {
        const json primary = location_of(places.front(), base);
        result["locations"] = json::array({primary});
        identity.push_back(primary.at("physicalLocation").at("artifactLocation").at("uri").get<std::string>());
        identity.push_back(std::to_string(places.front().line));
    }
    identity.insert(identity.end(), finding.module_names.begin(), finding.module_names.end());
    result["partialFingerprints"] = {{k_fingerprint_key, fingerprint(identity)}};
    if (places.size() > 1) {
        json related = json::array();
        for (std::size_t i = 1; i < places.size(); ++i) {
            json location = location_of(places[i], base);
            location["id"] = i;
            related.push_back(std::move(location));
        }
        result["relatedLocations"] = std::move(related);
    }
    result["properties"] = properties_of(finding);
    return result;
}

/// The directory the report's paths are relative to: the run's or the scan's working directory.
std::string working_directory(const Document& report)
{
    if (report.run)
        return report.run->cwd;
    if (report.scan)
        return report.scan->cwd;
    return {};
}

} // namespace

std::string render_sarif(const Document& report)
{
    json driver = {{"name", "importscope"},
                   {"version", report.tool.version.empty() ? k_version : report.tool.version},
                   {"rules", sarif_rules()}};
    const UriBase base(working_directory(report));
    json results = json::array();
    for (const ReportedFinding& finding : report.findings)
        results.push_back(result_of(finding, base));
    json run = {{"tool", {{"driver", std::move(driver)}}}, {"results", std::move(results)}};
    if (auto bases = base.original_uri_base_ids())
        run["originalUriBaseIds"] = std::move(*bases);
    const json log = {{"$schema", k_schema_uri}, {"version", "2.1.0"}, {"runs", json::array({std::move(run)})}};
    return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace importscope::report
