#pragma once

#include "importscope/report/document.hpp"

#include <string>

/// The forms a report takes for people and machines besides its JSON.
namespace importscope::report {

enum class Format { text, markdown, junit, dot };

/// "text", "markdown", "junit" or "dot"; throws Error (status 2) for anything else.
Format parse_format(const std::string& name);

/// Markdown to paste into an issue: summary table, each finding with its explanation, the import
/// stacks and known-issue advice, the environment folded away.
std::string render_markdown(const Document& report);

/// JUnit XML: one test case per finding kind, failing when that kind was found.
std::string render_junit(const Document& report);

/// Graphviz DOT of the import chains that lead to each duplicate, one colour per module name.
std::string render_dot(const Document& report);

/// The report in `format`, with control characters of its strings escaped; `color` applies to text only.
std::string render(Document report, Format format, bool color);

} // namespace importscope::report
