#include "report/markdown_text.hpp"

#include "importscope/report/escape.hpp"

#include <algorithm>

namespace importscope::report {

std::string fenced(const std::vector<std::string>& lines, const std::string& indent, const char* info)
{
    return markdown_fence(lines, indent, info);
}

std::string advice_markdown(const std::string& label, const std::string& advice)
{
    std::string out = label + " ";
    std::vector<std::string> code_lines;
    bool after_code = false;
    const auto flush = [&] {
        if (code_lines.empty())
            return;
        out += "\n\n" + fenced(code_lines, "", "python") + "\n";
        code_lines.clear();
        after_code = true;
    };
    std::size_t start = 0;
    while (start <= advice.size()) {
        const std::size_t end = std::min(advice.find('\n', start), advice.size());
        const std::string line = advice.substr(start, end - start);
        if (line.starts_with("    ")) {
            code_lines.push_back(line.substr(4));
        } else {
            flush();
            if (!line.empty())
                out += (after_code || start == 0 ? "" : "\n") + markdown_prose(line);
            after_code = false;
        }
        start = end + 1;
    }
    flush();
    return out + "\n\n";
}

} // namespace importscope::report
