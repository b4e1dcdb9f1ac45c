#include "hook/alias_lines.hpp"

#include "hook/diagnostics.hpp"

#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"

#include "importscope/util/regular_file.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>
#include <set>
#include <string_view>
#include <unistd.h>
#include <unordered_map>

namespace importscope::hook {

namespace {

constexpr std::size_t k_lines_kept = 5;
constexpr std::size_t k_file_bytes = 2u << 20;  // a larger source file is not read
constexpr std::size_t k_total_bytes = 64u << 20; // all files together, so that a huge program costs little
constexpr std::size_t k_files = 10'000;

/// A line of a source file that names `modules`: the only lines that can store into sys.modules
/// (stores_key), whatever the key.
struct ModulesLine {
    int number = 0;
    std::string text;
};

/// The lines of `text` that name `modules`, numbered from 1.
std::vector<ModulesLine> modules_lines(std::string_view text)
{
    std::vector<ModulesLine> lines;
    std::size_t counted_to = 0; // newlines before here are in `number`
    int number = 1;
    for (std::size_t at = text.find("modules"); at != std::string_view::npos; at = text.find("modules", at)) {
        number += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted_to),
                                              text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
        const std::size_t last_newline = text.rfind('\n', at);
        const std::size_t start = last_newline == std::string_view::npos ? 0 : last_newline + 1;
        const std::size_t end = std::min(text.find('\n', at), text.size());
        lines.push_back({number, std::string(text.substr(start, end - start))});
        counted_to = at;
        at = end; // the next line's first occurrence
    }
    return lines;
}

/// The lines naming `modules` of each source file read so far, so that a file is read once per
/// process however many aliases are looked for in it: the files of a program that aliases often
/// (setuptools' vendored packages make four aliases) would otherwise be read again for each.
/// Never destroyed, like the hooks' other tables; a forked child keeps its parent's.
class ModulesLineIndex {
public:
    static ModulesLineIndex& instance()
    {
        static auto* index = new ModulesLineIndex; // NOLINT(cppcoreguidelines-owning-memory): never freed
        return *index;
    }

    /// The lines of `file` that name `modules`, the file read the first time it is asked for; null
    /// once the process has read k_total_bytes.
    const std::vector<ModulesLine>* lines_of(const std::string& file)
    {
        if (const auto known = m_files.find(file); known != m_files.end())
            return &known->second;
        if (m_bytes >= k_total_bytes)
            return nullptr;
        // Opened without blocking: a FIFO named like a module cannot hold the import up.
        const std::string text =
            read_regular_file(file.c_str(), std::min(k_file_bytes, k_total_bytes - m_bytes)).value_or(std::string());
        m_bytes += text.size();
        return &m_files.emplace(file, modules_lines(text)).first->second;
    }

private:
    ModulesLineIndex() = default;
    std::unordered_map<std::string, std::vector<ModulesLine>> m_files;
    std::size_t m_bytes = 0; ///< read so far, by the whole process
};

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
    const std::array<std::string, 2> quoted{'"' + key + '"', '\'' + key + '\''};
    ModulesLineIndex& index = ModulesLineIndex::instance();
    std::set<std::string> seen;
    const Py_ssize_t count = std::min<Py_ssize_t>(PyList_GET_SIZE(modules.get()), k_files);
    for (Py_ssize_t i = 0; i < count && found.size() < k_lines_kept; ++i) {
        PyObject* item = PyList_GET_ITEM(modules.get(), i); // borrowed
        PyObject* name = PyTuple_GET_ITEM(item, 0);
        PyObject* module = PyTuple_GET_ITEM(item, 1);
        if (!PyUnicode_Check(name) || !PyModule_Check(module))
            continue;
        const std::string module_name = capi::to_utf8(name);
        if (is_stdlib_name(module_name))
            continue;
        std::string file = file_of(module);
        if (!file.ends_with(".py") || !seen.insert(file).second) // a file loaded under two names counts once
            continue;
        const std::vector<ModulesLine>* lines = index.lines_of(file);
        if (!lines)
            break; // the process has read all it may
        for (const ModulesLine& line : *lines) {
            if (found.size() == k_lines_kept)
                break;
            if (std::any_of(quoted.begin(), quoted.end(),
                            [&](const std::string& q) { return stores_key(line.text, q); }))
                found.push_back({file, line.number, "", module_name});
        }
    }
    PyErr_Clear();
    return found;
}

} // namespace importscope::hook
