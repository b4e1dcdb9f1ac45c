#pragma once

#include <string>
#include <vector>

/// Markdown building blocks shared by the renderers that write Markdown (the issue report, and
/// the `message.markdown` of each SARIF result).
namespace importscope::report {

/// A fenced code block, each line indented by `indent` (to stay inside a list item).
std::string fenced(const std::vector<std::string>& lines, const std::string& indent = "", const char* info = "");

/// A fix as Markdown: its prose as paragraphs, and its code (the lines indented by four spaces,
/// as the text summary shows them) as a fenced block set off by blank lines, which CommonMark
/// needs to see code where an indented line would otherwise continue the paragraph.
std::string advice_markdown(const std::string& label, const std::string& advice);

} // namespace importscope::report
