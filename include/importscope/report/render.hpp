#pragma once

#include "importscope/report/document.hpp"

#include <string>

/// The forms a report takes for people and machines besides its JSON.
namespace importscope::report {

enum class Format { text, markdown, junit, dot, sarif };

/// "text", "markdown", "junit", "dot" or "sarif"; throws Error (status 2) for anything else.
Format parse_format(const std::string& name);

/// Markdown to paste into an issue: summary table, each finding with its explanation, the import
/// stacks and known-issue advice, the environment folded away.
std::string render_markdown(const Document& report);

/// JUnit XML: one test case per finding kind, failing when that kind was found.
std::string render_junit(const Document& report);

/// A SARIF 2.1.0 log for code scanning: one run, a rule per finding kind importscope knows, a result
/// per finding with its level, its place (a line where the report has one, relative to the report's
/// working directory when under it) and a fingerprint that stays the same from run to run.
std::string render_sarif(const Document& report);

/// Graphviz DOT of the import chains that lead to each duplicate, one colour per module name.
std::string render_dot(const Document& report);

/// The report in `format`, with control characters of its strings escaped; `color` applies to text only.
std::string render(Document report, Format format, bool color);

} // namespace importscope::report
