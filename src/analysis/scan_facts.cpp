// parse_scan_facts() (scan.hpp): the scanner's JSON facts read into typed records, each declared once
// with nlohmann's macros.

#include "importscope/analysis/scan.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace importscope::analysis {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SourceLine, file, line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TopLevelName, name, kind, path)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ScannedEntry, entry, path, origin, pth, top_level)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ExecutedAgain, module, file, imported_at)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AliasImporter, file, line, module, executes_again)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SubmoduleAliasing, file, line, prefix, function, condition,
                                                condition_line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StaticAlias, file, line, alias, targets, targets_known, function, value,
                                                target, target_file, target_is_package, importers, covered_by)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ScannedExtension, path, module, root, size)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PackageDirectoryEntry, entry, outer_entry, package, extensions)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StartupCode, kind, file, line, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UnreadFile, path, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ScanFacts, python, sys_path, arguments, files, aliases, extensions,
                                                package_dirs_on_path, unparsable, problems, startup_code, unread,
                                                duration_s)

ScanFacts parse_scan_facts(const std::string& text)
{
    try {
        const nlohmann::json document = nlohmann::json::parse(text);
        if (!document.is_object() || document.value("facts", "") != "importscope-scan-facts/1")
            throw std::invalid_argument(document.is_object() && document.contains("error")
                                            ? document.at("error").get<std::string>()
                                            : "not the scanner's facts (\"importscope-scan-facts/1\")");
        return document.get<ScanFacts>();
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(fmt::format("the scanner's output is not its facts: {}", e.what()));
    }
}

} // namespace importscope::analysis
