#pragma once

#include <optional>
#include <string_view>

namespace importscope {

/// The last component of a path ("python3.11" of "/usr/bin/python3.11"): the name that
/// python_name_minor and task_launcher_named look at.
inline std::string_view file_name_of(std::string_view path)
{
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// Whether a file name is a Python interpreter's (python, python3, python3.11, python3.13t,
/// python3.12d, python3-dbg), and its 3.N minor: -1 when the name gives none; nullopt when it is
/// not an interpreter's name.
inline std::optional<int> python_name_minor(std::string_view name)
{
    if (!name.starts_with("python"))
        return std::nullopt;
    name.remove_prefix(6);
    int minor = -1;
    if (name.starts_with("3.")) {
        name.remove_prefix(2);
        minor = 0;
        while (!name.empty() && name.front() >= '0' && name.front() <= '9') {
            minor = minor * 10 + (name.front() - '0');
            name.remove_prefix(1);
        }
    }
    while (!name.empty() && ((name.front() >= '0' && name.front() <= '9') || name.front() == '.'))
        name.remove_prefix(1); // python3, python3.11.7
    if (!name.empty() && name != "d" && name != "t" && name != "m" && name != "-dbg")
        return std::nullopt;
    return minor;
}

} // namespace importscope
