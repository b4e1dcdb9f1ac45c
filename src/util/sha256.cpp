#include "importscope/util/sha256.hpp"

#include <fmt/format.h>
#include <nettle/sha2.h>

#include <array>
#include <fstream>

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
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    Digest digest;
    std::array<char, 1 << 16> chunk{};
    while (in) {
        in.read(chunk.data(), chunk.size());
        digest.update(chunk.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad())
        return std::nullopt;
    return digest.hex();
}

} // namespace importscope
