#include "redact_shapes.hpp"

#include "importscope/util/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace importscope::redaction {

namespace {

constexpr std::string_view k_redacted_text = "<redacted>";

/// Known token prefixes; a token is one of them and at least 8 token characters more.
constexpr std::array<std::string_view, 16> k_token_prefixes = {
    "ghp_",  "gho_",  "ghs_",  "ghu_",  "ghr_", "github_pat_", "glpat-", "xoxb-",
    "xoxp-", "xoxa-", "xoxs-", "xoxr-", "hf_",  "sk-",         "AKIA",   "ASIA"};
constexpr std::size_t k_token_min_rest = 8;

bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// Whether `text` starts with `prefix`, lower-case letters, in any case: ASCII's case bit, where
/// std::tolower asks the locale for each byte.
bool starts_with_nocase(std::string_view text, std::string_view prefix)
{
    constexpr char k_case_bit = 0x20;
    return text.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), text.begin(),
                                                      [](char lower, char c) { return (c | k_case_bit) == lower; });
}

/// The first two bytes of each known token prefix, as one number each (first byte high).
constexpr std::array<std::uint16_t, k_token_prefixes.size()> make_token_starts()
{
    std::array<std::uint16_t, k_token_prefixes.size()> starts{};
    for (std::size_t i = 0; i < k_token_prefixes.size(); ++i)
        starts[i] = static_cast<std::uint16_t>(static_cast<unsigned char>(k_token_prefixes[i][0]) << 8 |
                                               static_cast<unsigned char>(k_token_prefixes[i][1]));
    return starts;
}

constexpr std::array<std::uint16_t, k_token_prefixes.size()> k_token_starts = make_token_starts();

std::size_t span_of(const std::string& text, std::size_t from, bool (*accept)(unsigned char))
{
    while (from < text.size() && accept(static_cast<unsigned char>(text[from])))
        ++from;
    return from;
}

bool is_credential_char(unsigned char c)
{
    return std::isalnum(c) || (c != 0 && std::strchr("._~+/=-", c));
}

bool is_password_char(unsigned char c)
{
    return c > ' ' && c != 0x7f && !std::strchr("@:/<>\"'`", c);
}

bool is_user_char(unsigned char c)
{
    return std::isalnum(c) || (c != 0 && std::strchr("._%+-", c));
}

bool is_key_char(unsigned char c)
{
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
}

bool is_word_start(std::string_view text, std::size_t at)
{
    return at == 0 || !is_token_char(static_cast<unsigned char>(text[at - 1]));
}

/// The length of the auth scheme ("bearer ", "basic ") `rest` starts with, 0 if none.
std::size_t auth_scheme_length(std::string_view rest)
{
    for (const std::string_view scheme : {std::string_view("bearer"), std::string_view("basic")})
        if (starts_with_nocase(rest, scheme) && rest.size() > scheme.size() && is_space(rest[scheme.size()]))
            return scheme.size();
    return 0;
}

} // namespace

bool is_token_char(unsigned char c)
{
    return std::isalnum(c) || c == '_' || c == '-';
}

bool starts_secret_shape(std::string_view rest)
{
    switch (rest.empty() ? '\0' : rest.front()) {
    case 'e':
        return rest.starts_with("eyJ");
    case '-':
        return rest.starts_with("-----BEGIN");
    case 'B':
    case 'b':
        return auth_scheme_length(rest) != 0;
    case 'g':
    case 'x':
    case 'h':
    case 's':
    case 'A': {
        // Its first two bytes against each prefix's, as one number: a path's "home",
        // "site-packages" or "src" matches none and is passed without comparing a prefix.
        if (rest.size() < 2)
            return false;
        const auto start =
            static_cast<std::uint16_t>(static_cast<unsigned char>(rest[0]) << 8 | static_cast<unsigned char>(rest[1]));
        if (std::find(k_token_starts.begin(), k_token_starts.end(), start) == k_token_starts.end())
            return false;
        return std::any_of(k_token_prefixes.begin(), k_token_prefixes.end(),
                           [&](std::string_view prefix) { return rest.starts_with(prefix); });
    }
    default:
        return false;
    }
}

bool is_jwt(std::string_view value)
{
    if (!value.starts_with("eyJ"))
        return false;
    std::size_t dots = 0, part = 0, first = 0;
    for (const unsigned char c : value) {
        if (c == '.') {
            if (dots++ == 0)
                first = part;
            part = 0;
        } else if (is_token_char(c)) {
            ++part;
        } else {
            return false;
        }
    }
    return dots == 2 && first >= 10;
}

void redact_pem_blocks(std::string& text)
{
    for (std::size_t at = text.find("-----BEGIN"); at != std::string::npos; at = text.find("-----BEGIN", at + 1)) {
        const std::size_t label_end = text.find("-----", at + 10);
        if (label_end == std::string::npos)
            return;
        if (text.substr(at, label_end - at).find("PRIVATE KEY") == std::string::npos)
            continue;
        std::size_t end = text.find("-----END", label_end + 5);
        if (end != std::string::npos)
            end = text.find("-----", end + 8);
        end = end == std::string::npos ? text.size() : end + 5;
        text.replace(at, end - at, k_redacted_text);
    }
}

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
            text.replace(colon + 1, at - colon - 1, k_redacted_text);
        else if (looks_like_credential(std::string_view(text).substr(start, at - start)))
            text.replace(start, at - start, k_redacted_text);
    }
}

void redact_userinfo(std::string& text)
{
    for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at + 1)) {
        if (at + 1 >= text.size() || !std::isalnum(static_cast<unsigned char>(text[at + 1])))
            continue;
        std::size_t colon = at;
        while (colon > 0 && is_password_char(static_cast<unsigned char>(text[colon - 1])))
            --colon;
        if (colon == at || colon == 0 || text[colon - 1] != ':')
            continue;
        std::size_t user = colon - 1;
        while (user > 0 && is_user_char(static_cast<unsigned char>(text[user - 1])))
            --user;
        if (user == colon - 1 || (user > 0 && text[user - 1] == '/'))
            continue; // no user, or a URL's (redact_url_credentials)
        text.replace(colon, at - colon, k_redacted_text);
        at = colon + k_redacted_text.size();
    }
}

void redact_auth_schemes(std::string& text)
{
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (!is_word_start(text, at))
            continue;
        std::size_t start = at + auth_scheme_length(std::string_view(text).substr(at));
        if (start == at)
            continue;
        while (start < text.size() && is_space(text[start]))
            ++start;
        const std::size_t end = span_of(text, start, is_credential_char);
        if (end - start >= 4)
            text.replace(start, end - start, k_redacted_text);
        at = start;
    }
}

namespace {

/// The start of the key that ends at `sep` (spaces and one closing quote skipped), or npos when
/// there is none or it is not a secret name.
std::size_t secret_key_before(const std::string& text, std::size_t sep)
{
    std::size_t key_end = sep;
    while (key_end > 0 && text[key_end - 1] == ' ')
        --key_end;
    const char quote = key_end > 0 && (text[key_end - 1] == '"' || text[key_end - 1] == '\'') ? text[key_end - 1] : 0;
    key_end -= quote ? 1 : 0;
    key_end -= quote && key_end > 0 && text[key_end - 1] == '\\' ? 1 : 0; // a repr's \'password\'
    std::size_t key = key_end;
    while (key > 0 && is_key_char(static_cast<unsigned char>(text[key - 1])))
        --key;
    if (key == key_end || (quote && (key == 0 || text[key - 1] != quote)))
        return std::string::npos;
    return is_secret_name(std::string_view(text).substr(key, key_end - key)) ? key : std::string::npos;
}

/// True, False, None (sort_keys=True in a traceback's line), as JSON spells them too.
bool is_plain_constant(std::string_view value)
{
    for (const std::string_view constant : {"True", "False", "None", "true", "false", "null"})
        if (value == constant)
            return true;
    return false;
}

} // namespace

void redact_secret_pairs(std::string& text)
{
    for (std::size_t sep = text.find_first_of("=:"); sep != std::string::npos;
         sep = text.find_first_of("=:", sep + 1)) {
        if (secret_key_before(text, sep) == std::string::npos)
            continue;
        std::size_t start = sep + 1;
        while (start < text.size() && text[start] == ' ')
            ++start;
        if (start >= text.size() || text[start] == '=' || auth_scheme_length(std::string_view(text).substr(start)))
            continue; // "password == x" compares; "Authorization: Bearer X" is redact_auth_schemes'
        std::size_t end;
        if (text[start] == '\\' && start + 1 < text.size() && (text[start + 1] == '"' || text[start + 1] == '\''))
            ++start; // a repr's \'value\'
        if (text[start] == '"' || text[start] == '\'') {
            const char quote = text[start++];
            end = std::min(text.find(quote, start), text.size());
            end -= end > start && end < text.size() && text[end - 1] == '\\' ? 1 : 0;
        } else {
            end = std::min(text.find_first_of(" \t\r\n,;&)}]\"'<>", start), text.size());
        }
        const std::string_view value = std::string_view(text).substr(start, end - start);
        if (value.empty() || value == k_redacted_text || is_plain_constant(value))
            continue;
        text.replace(start, end - start, k_redacted_text);
        sep = start + k_redacted_text.size() - 1;
    }
}

void redact_known_tokens(std::string& text)
{
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (!is_word_start(text, at) || !starts_secret_shape(std::string_view(text).substr(at)))
            continue;
        std::size_t end = span_of(text, at, is_token_char);
        if (text.compare(at, 3, "eyJ") == 0) {
            // A JWT: three parts separated by dots.
            std::size_t jwt_end = end;
            for (int part = 0; part < 2 && jwt_end < text.size() && text[jwt_end] == '.'; ++part)
                jwt_end = span_of(text, jwt_end + 1, is_token_char);
            if (is_jwt(std::string_view(text).substr(at, jwt_end - at)))
                text.replace(at, jwt_end - at, k_redacted_text);
            continue;
        }
        const auto prefix = std::find_if(k_token_prefixes.begin(), k_token_prefixes.end(), [&](std::string_view p) {
            return std::string_view(text).substr(at).starts_with(p);
        });
        if (prefix != k_token_prefixes.end() && end - at >= prefix->size() + k_token_min_rest)
            text.replace(at, end - at, k_redacted_text);
    }
}

} // namespace importscope::redaction
