#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace importscope {

/// SHA-256 of `data` as 64 lowercase hex digits (FIPS 180-4), computed by nettle.
std::string sha256_hex(std::string_view data);

/// The largest file sha256_file() reads: the largest extension modules (CUDA kernels and all) are
/// hundreds of megabytes, and a sparse file of a terabyte put where one was must not be read whole.
inline constexpr std::size_t k_largest_hashed = std::size_t{4} << 30;

/// SHA-256 of a regular file's content, read in blocks; nullopt when it cannot be read, is no
/// regular file (a FIFO is not waited on) or is larger than k_largest_hashed.
std::optional<std::string> sha256_file(const std::filesystem::path& path);

} // namespace importscope
