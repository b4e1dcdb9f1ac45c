#include "importscope/report/render.hpp"

#include "importscope/report/escape.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <set>

namespace importscope::report {

using nlohmann::json;

namespace {

constexpr std::array k_colors = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"};

std::string quoted(const std::string& text)
{
    return dot_string(text);
}

std::string basename(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string render_dot(const Document& report)
{
    std::string out = "digraph importscope {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n"
                      "  edge [fontname=\"Helvetica\"];\n";
    std::set<std::string> edges;
    std::set<std::string> nodes;
    auto node = [&](int pid, const std::string& module) {
        std::string id = quoted(fmt::format("pid{}:{}", pid, module));
        if (nodes.insert(id).second)
            out += fmt::format("  {} [label={}];\n", id, quoted(module));
        return id;
    };
    int cluster = 0;
    for (const auto& f : report.findings) {
        const auto* evidence = std::get_if<analysis::DuplicateInitEvidence>(&f.evidence);
        if (!evidence)
            continue;
        const std::string& file = f.file;
        const int pid = f.pid;
        const std::string so = fmt::format("pid{}:{}", pid, file);
        out += fmt::format("  subgraph cluster_{} {{\n    label={};\n    {} [shape=component, label={}];\n  }}\n",
                           cluster++, quoted(fmt::format("pid {}", pid)), quoted(so), quoted(basename(file)));
        const std::vector<analysis::ExtensionInit>& inits = evidence->initializations;
        for (std::size_t i = 0; i < inits.size(); ++i) {
            const char* color = k_colors[i % k_colors.size()];
            // The chain of importing modules, outermost first, down to the name the .so got.
            std::vector<std::string> chain;
            for (const journal::Frame& frame : inits[i].stack) {
                const std::string& module = frame.module;
                if (!module.empty() && (chain.empty() || chain.back() != module))
                    chain.push_back(module);
            }
            const std::string& name = inits[i].module;
            chain.push_back(name);
            for (const auto& module : chain)
                node(pid, module);
            out += fmt::format("  {} [color={}, fontcolor={}, penwidth=2];\n",
                               quoted(fmt::format("pid{}:{}", pid, name)), quoted(color), quoted(color));
            for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
                const std::string edge =
                    fmt::format("  {} -> {} [color={}];\n", quoted(fmt::format("pid{}:{}", pid, chain[k])),
                                quoted(fmt::format("pid{}:{}", pid, chain[k + 1])), quoted(color));
                if (edges.insert(edge).second)
                    out += edge;
            }
            out += fmt::format("  {} -> {} [color={}, label={}];\n", quoted(fmt::format("pid{}:{}", pid, name)),
                               quoted(so), quoted(color), quoted(inits[i].status));
        }
    }
    return out + "}\n";
}

} // namespace importscope::report
