// libFuzzer target: the report reader that `report`, `diff` and `merge` use, and what they do with
// an accepted report. Any input must end in a report or an importscope::Error (exit status 2);
// nlohmann's own exceptions are caught by run_cli as well, so only real crashes count.

#include "importscope/report/compare.hpp"
#include "importscope/report/merge.hpp"
#include "importscope/report/reader.hpp"
#include "importscope/report/render.hpp"
#include "importscope/util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace importscope;
    try {
        const auto report = report::parse_report(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
        for (auto format : {report::Format::text, report::Format::markdown, report::Format::junit, report::Format::dot})
            (void)report::render(report, format, false);
        (void)report::render_diff(report::diff_reports(report, report));
        (void)nlohmann::json(report::merge_reports({report, report})).dump();
    } catch (const Error&) {
    } catch (const nlohmann::json::exception&) {
    }
    return 0;
}
