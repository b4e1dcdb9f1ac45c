#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

/// The one place where text a target controls (module names, paths, exception messages, command
/// lines) is made safe for each kind of output: every renderer, the live status line and `diff` write
/// such text only through these functions.
namespace importscope::report {

/// For a terminal: control characters (C0 with newline, CR and tab, DEL, C1), invalid UTF-8 bytes
/// and the bidi overrides and line separators of Unicode written as visible escapes ("\n", "\x1b",
/// "\u202e"); other text unchanged. With `keep_newlines`, newlines stay (text meant to span lines).
std::string terminal_text(std::string_view text, bool keep_newlines = false);

/// `text` that spans lines, for a terminal: each line escaped, the lines after the first indented
/// by `indent`, so no line of it starts where the summary's own lines start.
std::string terminal_lines(std::string_view text, std::string_view indent);

/// Inline Markdown: terminal_text, then Markdown's punctuation and HTML backslash-escaped and a
/// block marker at the start made literal, so the text is one run of plain text wherever it stands.
std::string markdown_text(std::string_view text);

/// importscope's own prose, which marks code with backticks (`import deep_gemm.<sub>`) around
/// names a target controls: each backtick-delimited part a code span (markdown_code), the rest
/// markdown_text, an unpaired backtick literal. A backtick in a name can only move which parts
/// are code; nothing in either kind of part is read as Markdown.
std::string markdown_prose(std::string_view text);

/// A Markdown code span of `text`, its backtick fence longer than any run inside; `in_table` also
/// escapes "|", which GFM tables split cells at even inside code spans.
std::string markdown_code(std::string_view text, bool in_table = false);

/// A fenced code block of `lines` (each terminal_text), each line after `indent`, its fence of
/// backticks longer than any run inside.
std::string markdown_fence(const std::vector<std::string>& lines, const std::string& indent = "",
                           const char* info = "");

/// XML 1.0 text and attribute values: terminal_text keeping newlines (XML cannot hold most
/// control characters), then markup escaped.
std::string xml_text(std::string_view text);

/// A quoted Graphviz DOT string: terminal_text, then quotes and backslashes escaped.
std::string dot_string(std::string_view text);

/// Every string made terminal_text, for the renderers: what a target printed never
/// drives the terminal that reads a summary, nor starts a line of its own. Only a string under the
/// key "advice" (a fix, whose code stands on lines of its own) keeps its newlines.
/// With `newlines_everywhere` (a JSON output such as SARIF, whose strings carry lines safely), no
/// newline is escaped.
void escape_control_characters(nlohmann::json& value, bool keep_newlines = false, bool newlines_everywhere = false);

} // namespace importscope::report
