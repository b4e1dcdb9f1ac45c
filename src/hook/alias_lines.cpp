#include "hook/alias_lines.hpp"

#include "hook/diagnostics.hpp"

#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <set>
#include <string_view>

namespace importscope::hook {

namespace {

constexpr std::size_t k_lines_kept = 5;
constexpr std::size_t k_file_bytes = 2u << 20;  // a larger source file is not read
constexpr std::size_t k_total_bytes = 64u << 20; // all files together, so that a huge program costs little
constexpr std::size_t k_files = 10'000;

/// The file's text, or nothing when it is missing, unreadable or larger than `limit`.
std::string read_small_file(const std::string& path, std::size_t limit)
{
    std::string text;
    std::ifstream file(path, std::ios::binary);
    std::array<char, 65536> buffer{};
    while (file) {
        file.read(buffer.data(), buffer.size());
        const auto got = static_cast<std::size_t>(file.gcount());
        if (text.size() + got > limit)
            return {};
        text.append(buffer.data(), got);
    }
    return text;
}

std::string_view after_spaces(std::string_view text, std::size_t from)
{
    while (from < text.size() && (text[from] == ' ' || text[from] == '\t'))
        ++from;
    return text.substr(std::min(from, text.size()));
}

/// Whether `line` stores under the key that `quoted` quotes: `modules[Q] = ...` (not `==`),
/// `modules.setdefault(Q, ...)`, or `Q: ...` in an `update(` call's dict.
bool stores_key(std::string_view line, std::string_view quoted)
{
    if (line.find("modules") == std::string_view::npos)
        return false;
    for (std::size_t at = line.find(quoted); at != std::string_view::npos; at = line.find(quoted, at + 1)) {
        const std::string_view before = line.substr(0, at);
        const std::string_view after = after_spaces(line, at + quoted.size());
        const std::size_t last = before.find_last_not_of(" \t");
        const char opener = last == std::string_view::npos ? '\0' : before[last];
        if (opener == '[' && after.starts_with("]")) {
            const std::string_view assigned = after_spaces(after, 1);
            if (assigned.starts_with("=") && !assigned.starts_with("=="))
                return true;
        }
        if (opener == '(' && before.substr(0, last).ends_with("setdefault"))
            return true;
        if (after.starts_with(":") && line.find("update(") != std::string_view::npos)
            return true;
    }
    return false;
}

/// The lines of `text` that store a module under `key` (stores_key), appended to `found`.
void find_lines(const std::string& text, const std::string& key, const std::string& file, const std::string& module,
                std::vector<journal::Frame>& found)
{
    const std::array<std::string, 2> quoted{'"' + key + '"', '\'' + key + '\''};
    std::size_t line_start = 0;
    int line = 1;
    while (line_start < text.size() && found.size() < k_lines_kept) {
        std::size_t line_end = text.find('\n', line_start);
        if (line_end == std::string::npos)
            line_end = text.size();
        const std::string_view here(text.data() + line_start, line_end - line_start);
        if (std::any_of(quoted.begin(), quoted.end(), [&](const std::string& q) { return stores_key(here, q); }))
            found.push_back({file, line, "", module});
        line_start = line_end + 1;
        ++line;
    }
}

/// A module's `__file__` from its dict (no attribute look-up, so no module __getattr__ runs), or "".
std::string file_of(PyObject* module)
{
    PyObject* dict = PyModule_GetDict(module);                                        // borrowed
    PyObject* file = dict ? PyDict_GetItemString(dict, "__file__") : nullptr;          // borrowed
    return file && PyUnicode_Check(file) ? capi::to_utf8(file) : std::string{};
}

} // namespace

std::vector<journal::Frame> alias_lines_in_code(const std::string& key)
{
    std::vector<journal::Frame> found;
    capi::PyRef modules = capi::PyRef::steal(PyDict_Items(PyImport_GetModuleDict()));
    if (!modules) {
        PyErr_Clear();
        return found;
    }
    std::size_t bytes = 0;
    std::set<std::string> read;
    const Py_ssize_t count = std::min<Py_ssize_t>(PyList_GET_SIZE(modules.get()), k_files);
    for (Py_ssize_t i = 0; i < count && found.size() < k_lines_kept && bytes < k_total_bytes; ++i) {
        PyObject* item = PyList_GET_ITEM(modules.get(), i); // borrowed
        PyObject* name = PyTuple_GET_ITEM(item, 0);
        PyObject* module = PyTuple_GET_ITEM(item, 1);
        if (!PyUnicode_Check(name) || !PyModule_Check(module))
            continue;
        const std::string module_name = capi::to_utf8(name);
        if (is_stdlib_name(module_name))
            continue;
        std::string file = file_of(module);
        if (!file.ends_with(".py") || !read.insert(file).second) // a file loaded under two names is read once
            continue;
        const std::string text = read_small_file(file, std::min(k_file_bytes, k_total_bytes - bytes));
        bytes += text.size();
        if (text.find(key) != std::string::npos)
            find_lines(text, key, file, module_name, found);
    }
    PyErr_Clear();
    return found;
}

} // namespace importscope::hook
