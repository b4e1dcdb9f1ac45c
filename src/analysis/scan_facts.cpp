// parse_scan_facts() (scan.hpp): the scanner's JSON facts read into the typed records of scan.hpp.

#include "importscope/analysis/scan.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace importscope::analysis {

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
