#include "importscope/util/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace importscope {

bool is_secret_name(std::string_view name)
{
    std::string upper(name);
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    static constexpr std::array k_words = {"TOKEN", "KEY", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL"};
    return std::any_of(k_words.begin(), k_words.end(),
                       [&](const char* word) { return upper.find(word) != std::string::npos; });
}

bool looks_like_credential(std::string_view value)
{
    static constexpr std::array k_prefixes = {"hf_",         "sk-",    "ghp_",  "gho_",  "ghs_",
                                              "github_pat_", "glpat-", "xoxb-", "xoxp-", "AKIA"};
    for (const char* prefix : k_prefixes)
        if (value.starts_with(prefix) && value.size() >= std::string_view(prefix).size() + 8)
            return true;
    // Long base64 or hex-like blobs: only token characters, mixed letters and digits, no path.
    if (value.size() < 32 || value.front() == '/')
        return false;
    bool digit = false, lower = false, upper = false;
    for (const unsigned char c : value) {
        if (!(std::isalnum(c) || c == '+' || c == '/' || c == '=' || c == '_' || c == '-'))
            return false;
        digit = digit || std::isdigit(c);
        lower = lower || std::islower(c);
        upper = upper || std::isupper(c);
    }
    return digit && (lower || upper);
}

std::string redact_variable(std::string_view name, std::string_view value)
{
    if (is_secret_name(name) || looks_like_credential(value))
        return k_redacted;
    return std::string(value);
}

} // namespace importscope
