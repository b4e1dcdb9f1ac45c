#include "importscope/util/sha256.hpp"
#include "importscope/util/regular_file.hpp"

#include <fmt/format.h>
#include <nettle/sha2.h>

#include <array>
#include <cerrno>
#include <unistd.h>

namespace importscope {

namespace {

/// One SHA-256 computation through nettle.
class Digest {
public:
    Digest() { sha256_init(&m_context); }

    void update(const char* data, std::size_t size)
    {
        sha256_update(&m_context, size, reinterpret_cast<const std::uint8_t*>(data));
    }

    std::string hex()
    {
        std::array<std::uint8_t, SHA256_DIGEST_SIZE> digest{};
        sha256_digest(&m_context, digest.size(), digest.data());
        std::string text;
        for (const std::uint8_t byte : digest)
            fmt::format_to(std::back_inserter(text), "{:02x}", byte);
        return text;
    }

private:
    sha256_ctx m_context{};
};

} // namespace

std::string sha256_hex(std::string_view data)
{
    Digest digest;
    digest.update(data.data(), data.size());
    return digest.hex();
}

std::optional<std::string> sha256_file(const std::filesystem::path& path)
{
    const std::optional<RegularFile> file = open_regular_file(path.c_str());
    if (!file || file->size > k_largest_extension_file)
        return std::nullopt;
    const UniqueFd& fd = file->fd;
    Digest digest;
    std::array<char, 1 << 16> chunk{};
    for (std::size_t hashed = 0; hashed <= k_largest_extension_file;) {
        const ssize_t n = ::read(fd.get(), chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return std::nullopt;
        if (n == 0)
            return digest.hex();
        digest.update(chunk.data(), static_cast<std::size_t>(n));
        hashed += static_cast<std::size_t>(n);
    }
    return std::nullopt; // it grew past the bound while it was read
}

} // namespace importscope
