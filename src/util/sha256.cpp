#include "importscope/util/sha256.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace importscope {

namespace {

/// One SHA-256 computation through OpenSSL's EVP interface.
class Digest {
public:
    Digest() : m_context(EVP_MD_CTX_new(), &EVP_MD_CTX_free)
    {
        if (!m_context || EVP_DigestInit_ex(m_context.get(), EVP_sha256(), nullptr) != 1)
            throw std::runtime_error("OpenSSL cannot compute SHA-256");
    }

    void update(const char* data, std::size_t size)
    {
        if (EVP_DigestUpdate(m_context.get(), data, size) != 1)
            throw std::runtime_error("OpenSSL cannot compute SHA-256");
    }

    std::string hex()
    {
        std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
        unsigned int size = 0;
        if (EVP_DigestFinal_ex(m_context.get(), digest.data(), &size) != 1)
            throw std::runtime_error("OpenSSL cannot compute SHA-256");
        std::string text;
        for (unsigned int i = 0; i < size; ++i)
            fmt::format_to(std::back_inserter(text), "{:02x}", digest[i]);
        return text;
    }

private:
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> m_context;
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
