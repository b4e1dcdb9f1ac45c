#include "importscope/app/install_layout.hpp"

#include "importscope/supervisor/python_runtime.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace importscope::app {

namespace fs = std::filesystem;

InstallLayout find_install_layout()
{
    std::error_code ec;
    const fs::path binary_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    InstallLayout layout;
    layout.binary_dir = binary_dir.string();
    for (const fs::path& prefix : {binary_dir.parent_path(), binary_dir}) {
        if (!fs::is_directory(prefix / "lib" / "importscope", ec))
            continue;
        layout.runtime_dir = fs::canonical(prefix / "lib" / "importscope", ec).string();
        if (fs::exists(prefix / "share" / "importscope" / "known-issues.json", ec))
            layout.data_dir = fs::canonical(prefix / "share" / "importscope", ec).string();
        layout.installed = prefix == binary_dir.parent_path();
        return layout;
    }
    return layout;
}

std::string bootstrap_dir(const InstallLayout& layout)
{
    const fs::path dir = fs::path(layout.runtime_dir) / "bootstrap";
    std::error_code ec;
    if (layout.runtime_dir.empty() || !fs::exists(dir / "sitecustomize.py", ec))
        throw Error(fmt::format("cannot follow Python children: no bootstrap directory (lib/importscope/bootstrap) "
                                "beside the importscope binary in {}; rebuild or reinstall importscope, or pass "
                                "--no-follow",
                                layout.binary_dir));
    return dir.string();
}

std::vector<std::string> worker_minors(const InstallLayout& layout)
{
    return supervisor::available_minors(layout.runtime_dir);
}

} // namespace importscope::app
