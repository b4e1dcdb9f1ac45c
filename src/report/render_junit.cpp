#include "importscope/report/render.hpp"

#include "importscope/analysis/finding.hpp"
#include "importscope/report/escape.hpp"

#include <fmt/format.h>

#include <array>

namespace importscope::report {

namespace {

using analysis::k_finding_kinds;

} // namespace

std::string render_junit(const Document& report)
{
    std::string cases;
    int failures = 0;
    for (const char* kind : k_finding_kinds) {
        std::vector<const ReportedFinding*> found;
        for (const auto& f : report.findings)
            if (f.kind == kind)
                found.push_back(&f);
        cases += fmt::format("    <testcase classname=\"importscope\" name=\"{}\"", xml_text(kind));
        if (found.empty()) {
            cases += "/>\n";
            continue;
        }
        ++failures;
        std::string details;
        for (const ReportedFinding* f : found)
            details +=
                fmt::format("[{}] pid {}: {}\n{}\n\n", analysis::to_string(f->severity), f->pid, f->message, f->advice);
        const ReportedFinding& first = *found.front();
        cases +=
            fmt::format(">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                        xml_text(analysis::to_string(first.severity)),
                        xml_text(fmt::format("{} finding(s): {}", found.size(), first.message)), xml_text(details));
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
