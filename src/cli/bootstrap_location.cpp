#include "cli/bootstrap_location.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace importscope::cli {

std::string find_bootstrap_dir()
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    const fs::path candidates[] = {exe_dir / "importscope-bootstrap",
                                   exe_dir / ".." / "lib" / "importscope" / "bootstrap"};
    for (const auto& dir : candidates)
        if (fs::exists(dir / "sitecustomize.py", ec))
            return fs::canonical(dir, ec).string();
    throw Error(fmt::format("cannot follow Python children: no bootstrap directory ({}) beside the importscope "
                            "binary; rebuild or reinstall importscope, or pass --no-follow",
                            candidates[0].string()));
}

std::string find_data_dir()
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    for (const auto& dir : {exe_dir / "importscope-data", exe_dir / ".." / "share" / "importscope"})
        if (fs::exists(dir / "known-issues.json", ec))
            return fs::canonical(dir, ec).string();
    return {};
}

} // namespace importscope::cli
