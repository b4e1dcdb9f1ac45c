#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace importscope {

/// SHA-256 of `data` as 64 lowercase hex digits (FIPS 180-4), computed by nettle.
std::string sha256_hex(std::string_view data);

/// SHA-256 of a regular file's content, read in blocks; nullopt when it cannot be read, is no
/// regular file (a FIFO is not waited on) or is larger than k_largest_extension_file
/// (regular_file.hpp).
std::optional<std::string> sha256_file(const std::filesystem::path& path);

} // namespace importscope
