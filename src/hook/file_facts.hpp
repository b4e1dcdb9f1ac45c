#pragma once

#include "importscope/journal/event.hpp"

#include <optional>
#include <string>

namespace importscope::hook {

/// What the file system says about an imported file.
struct FileFacts {
    std::string realpath;                          ///< empty when it cannot be resolved
    std::optional<journal::FileIdentity> identity; ///< (st_dev, st_ino), when stat() works
};

FileFacts file_facts(const std::string& path);

} // namespace importscope::hook
