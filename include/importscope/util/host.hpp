#pragma once

#include <string>

namespace importscope {

/// The working directory, or "" when it cannot be told (removed, too long).
std::string current_directory();

/// This machine's name, or "".
std::string host_name();

/// $HOME, else the user's home directory in the password database, or "".
std::string home_directory();

/// The user's name in the password database, or "".
std::string user_name();

} // namespace importscope
