#include "importscope/analysis/known_issues.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace importscope::analysis {

namespace {

std::regex compile(const std::string& pattern, const std::string& id)
{
    try {
        return std::regex(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw std::invalid_argument("known issue " + id + ": bad pattern \"" + pattern + "\": " + e.what());
    }
}

/// Whether the call site of one of the finding's source executions is in a module `pattern` finds.
bool called_from(const Finding& finding, const std::regex& pattern)
{
    const auto* source = std::get_if<DuplicateSourceExecEvidence>(&finding.evidence);
    return source && std::any_of(source->executions.begin(), source->executions.end(), [&](const SourceExecution& e) {
               return e.call_site && std::regex_search(e.call_site->module, pattern);
           });
}

/// Whether `name` is a file in the directory of `file` (an absolute path).
bool fixed_beside(const std::string& file, const std::string& name, const FileExists& exists)
{
    const std::size_t slash = file.rfind('/');
    return slash != std::string::npos && slash > 0 && exists(file.substr(0, slash + 1) + name);
}

} // namespace

KnownIssueCatalogue KnownIssueCatalogue::parse(const nlohmann::json& document)
{
    if (!document.is_object() || document.value("schema", "") != "importscope.known-issues/1" ||
        !document.contains("issues") || !document.at("issues").is_array())
        throw std::invalid_argument("not an importscope.known-issues/1 catalogue");
    KnownIssueCatalogue catalogue;
    for (const auto& item : document.at("issues")) {
        try {
            Entry entry;
            const std::string id = item.at("id").get<std::string>();
            const auto& match = item.at("match");
            entry.kinds = match.at("kind").get<std::vector<std::string>>();
            for (const auto& p : match.value("module_names", std::vector<std::string>{}))
                entry.module_names.push_back(compile(p, id));
            if (match.contains("file"))
                entry.file = compile(match.at("file").get<std::string>(), id);
            if (match.contains("type_name"))
                entry.type_name = compile(match.at("type_name").get<std::string>(), id);
            if (match.contains("call_site_module"))
                entry.call_site_module = compile(match.at("call_site_module").get<std::string>(), id);
            if (match.contains("fixed_if_beside")) {
                entry.fixed_if_beside = match.at("fixed_if_beside").get<std::string>();
                if (entry.fixed_if_beside->empty() || entry.fixed_if_beside->find('/') != std::string::npos)
                    throw std::invalid_argument("known issue " + id + ": fixed_if_beside names a file, not a path");
            }
            entry.description.id = id;
            entry.description.title = item.at("title").get<std::string>();
            entry.description.explanation = item.at("explanation").get<std::string>();
            entry.description.advice = item.at("advice").get<std::vector<std::string>>();
            entry.description.links = item.at("links").get<std::vector<std::string>>();
            if (const auto fix = item.find("fixed_in"); fix != item.end() && !fix->is_null())
                entry.description.fixed_in = fix->get<KnownIssueFix>();
            catalogue.m_entries.push_back(std::move(entry));
        } catch (const nlohmann::json::exception& e) {
            throw std::invalid_argument(std::string("malformed known issue: ") + e.what());
        }
    }
    return catalogue;
}

KnownIssueCatalogue KnownIssueCatalogue::load(const std::filesystem::path& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument("cannot read " + path.string());
    const auto document = nlohmann::json::parse(in, nullptr, false);
    if (document.is_discarded())
        throw std::invalid_argument(path.string() + " is not JSON");
    return parse(document);
}

std::optional<KnownIssue> KnownIssueCatalogue::match(const Finding& finding, const FileExists& exists) const
{
    for (const auto& entry : m_entries) {
        if (std::find(entry.kinds.begin(), entry.kinds.end(), finding.kind) == entry.kinds.end())
            continue;
        const bool names = std::all_of(entry.module_names.begin(), entry.module_names.end(), [&](const std::regex& re) {
            return std::any_of(finding.module_names.begin(), finding.module_names.end(),
                               [&](const std::string& name) { return std::regex_search(name, re); });
        });
        if (!names)
            continue;
        if (entry.file && !std::regex_search(finding.file, *entry.file))
            continue;
        if (entry.call_site_module && !called_from(finding, *entry.call_site_module))
            continue;
        if (entry.fixed_if_beside && exists && fixed_beside(finding.file, *entry.fixed_if_beside, exists))
            continue;
        if (entry.type_name) {
            const auto* conflict = std::get_if<NativeTypeConflictEvidence>(&finding.evidence);
            if (!std::regex_search(conflict ? conflict->type_name : std::string(), *entry.type_name))
                continue;
        }
        return entry.description;
    }
    return std::nullopt;
}

} // namespace importscope::analysis
