#include "importscope/report/summary.hpp"

#include <fmt/color.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace importscope::report {

using nlohmann::json;

namespace {

class Painter {
public:
    explicit Painter(bool color) : m_color(color) {}
    std::string operator()(const std::string& text, fmt::text_style style) const
    {
        return m_color ? fmt::format(style, "{}", text) : text;
    }

private:
    bool m_color;
};

std::string plural(std::size_t n, const char* one, const char* many)
{
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string site_text(const json& load)
{
    const json& site = load.value("call_site", json());
    if (!site.is_object())
        return "call site unknown";
    return fmt::format("from {}:{}", site.value("file", "?"), site.value("line", 0));
}

std::string outcome_text(const json& load)
{
    const json& error = load.value("error", json());
    if (error.is_object())
        return fmt::format("{}: {}", error.value("type", "?"), error.value("message", ""));
    return load.value("status", "unknown");
}

} // namespace

std::string render_summary(const json& report, bool color)
{
    const Painter paint(color);
    const json& run = report.at("run");
    const json& summary = report.at("summary");
    std::string out;

    out += fmt::format("importscope: target {} ({:.2f} s)\n", run.at("exit").value("description", ""),
                       run.value("duration_s", 0.0));
    if (const json& exc = run.at("exit").value("exception", json()); exc.is_object())
        out += fmt::format("importscope: uncaught {}: {}\n", exc.value("type", "?"), exc.value("message", ""));
    out +=
        fmt::format("importscope: {}, {} recorded, {}\n", plural(summary.value("processes", 0), "process", "processes"),
                    plural(summary.value("modules", 0), "module", "modules"),
                    plural(summary.value("extension_inits", 0), "extension init", "extension inits"));

    for (const json& f : report.at("findings")) {
        const bool is_error = f.value("severity", "") == "error";
        const auto label =
            paint(is_error ? "error" : "warning",
                  fmt::fg(is_error ? fmt::terminal_color::red : fmt::terminal_color::yellow) | fmt::emphasis::bold);
        out += fmt::format("importscope: {}: {}: {}\n", label, f.value("kind", ""), f.value("message", ""));
        const json& inits = f.at("evidence").value("initializations", json::array());
        for (std::size_t i = 0; i < inits.size(); ++i)
            out +=
                fmt::format("    {}. {}  {}  ({})\n", i + 1, paint(inits[i].value("module", ""), fmt::emphasis::bold),
                            outcome_text(inits[i]), site_text(inits[i]));
        out += fmt::format("  why: {}\n", f.value("explanation", ""));
        out += fmt::format("  fix: {}\n", f.value("advice", ""));
    }
    if (report.at("findings").empty())
        out += "importscope: no findings\n";
    for (const json& problem : report.at("problems"))
        out += fmt::format("importscope: note: {}\n", problem.get<std::string>());
    return out;
}

} // namespace importscope::report
