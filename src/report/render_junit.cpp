#include "importscope/report/render.hpp"

#include "importscope/analysis/finding.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>

namespace importscope::report {

using nlohmann::json;

namespace {

using analysis::k_finding_kinds;

/// Text and attribute values for XML 1.0: escapes markup, drops characters XML cannot hold.
std::string xml_escape(const std::string& text)
{
    std::string out;
    for (const unsigned char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
                out += ' ';
            else
                out += static_cast<char>(c);
        }
    }
    return out;
}

} // namespace

std::string render_junit(const json& report)
{
    std::string cases;
    int failures = 0;
    for (const char* kind : k_finding_kinds) {
        std::vector<const json*> found;
        for (const json& f : report.at("findings"))
            if (f.value("kind", "") == kind)
                found.push_back(&f);
        cases += fmt::format("    <testcase classname=\"importscope\" name=\"{}\"", kind);
        if (found.empty()) {
            cases += "/>\n";
            continue;
        }
        ++failures;
        std::string details;
        for (const json* f : found)
            details += fmt::format("[{}] pid {}: {}\n{}\n\n", f->value("severity", ""), f->value("pid", 0),
                                   f->value("message", ""), f->value("advice", ""));
        const json& first = *found.front();
        cases += fmt::format(">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                             xml_escape(first.value("severity", "")),
                             xml_escape(fmt::format("{} finding(s): {}", found.size(), first.value("message", ""))),
                             xml_escape(details));
    }
    return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<testsuites name=\"importscope\" tests=\"{0}\" failures=\"{1}\">\n"
                       "  <testsuite name=\"importscope\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"0\">\n"
                       "{2}"
                       "  </testsuite>\n"
                       "</testsuites>\n",
                       k_finding_kinds.size(), failures, cases);
}

} // namespace importscope::report
