#pragma once

#include <string>

namespace importscope {

/// The working directory, or "" when it cannot be told (removed, too long).
std::string current_directory();

/// This machine's name, or "".
std::string host_name();

} // namespace importscope
