#include "importscope/util/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace importscope {

bool is_secret_name(std::string_view name)
{
    std::string upper(name);
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    static constexpr std::array k_words = {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "AUTH", "CREDENTIAL"};
    if (std::any_of(k_words.begin(), k_words.end(), [&](const char* word) { return upper.find(word) != std::string::npos; }))
        return true;
    // DB_PWD, MYSQL_PWD; not PWD and OLDPWD, the shell's working directories.
    return upper.ends_with("_PWD") || upper.ends_with("-PWD");
}

namespace {

bool is_token_char(unsigned char c)
{
    return std::isalnum(c) || c == '_' || c == '-';
}

/// "user:PASSWORD@" in "scheme://user:PASSWORD@host/...": the password goes, the user stays; a
/// user part alone that looks like a token ("https://ghp_...@github.com") goes too.
void redact_url_credentials(std::string& text)
{
    for (std::size_t scheme = text.find("://"); scheme != std::string::npos; scheme = text.find("://", scheme + 3)) {
        const std::size_t start = scheme + 3;
        const std::size_t end = std::min(text.find_first_of("/?# \t\n\"'<>", start), text.size());
        const std::size_t at = text.rfind('@', end);
        if (at == std::string::npos || at < start)
            continue;
        const std::size_t colon = text.find(':', start);
        if (colon != std::string::npos && colon < at)
            text.replace(colon + 1, at - colon - 1, k_redacted);
        else if (looks_like_credential(std::string_view(text).substr(start, at - start)))
            text.replace(start, at - start, k_redacted);
    }
}

/// Tokens of the known formats anywhere in a text ("invalid token hf_AbC..." in an error).
void redact_known_tokens(std::string& text)
{
    static constexpr std::array k_prefixes = {"hf_", "sk-", "ghp_", "gho_", "ghs_", "github_pat_", "glpat-", "xoxb-",
                                              "xoxp-", "AKIA"};
    for (const char* prefix : k_prefixes)
        for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
            if (at > 0 && is_token_char(static_cast<unsigned char>(text[at - 1])))
                continue; // inside a longer word ("task-", "disk-")
            std::size_t end = at + std::string_view(prefix).size();
            while (end < text.size() && is_token_char(static_cast<unsigned char>(text[end])))
                ++end;
            if (end - at >= std::string_view(prefix).size() + 8)
                text.replace(at, end - at, k_redacted);
        }
}

} // namespace

std::string redact_text(std::string_view text)
{
    std::string out(text);
    if (out.find("://") != std::string::npos)
        redact_url_credentials(out);
    redact_known_tokens(out);
    return out;
}

void redact_arguments(std::vector<std::string>& argv)
{
    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::string& word = argv[i];
        if (word.size() > 1 && word[0] == '-') {
            const std::size_t eq = word.find('=');
            const std::string_view name = std::string_view(word).substr(0, eq);
            if (is_secret_name(name)) {
                if (eq != std::string::npos)
                    word = std::string(name) + "=" + k_redacted;
                else if (i + 1 < argv.size() && !argv[i + 1].starts_with("-"))
                    argv[++i] = k_redacted;
                continue;
            }
        }
        word = redact_text(word);
    }
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
