#include "importscope/util/redact.hpp"

#include "redact_shapes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <string>
#include <vector>

namespace importscope {

namespace {

bool is_one_of(std::string_view word, std::initializer_list<std::string_view> words)
{
    return std::find(words.begin(), words.end(), word) != words.end();
}

bool ends_with_one_of(std::string_view word, std::initializer_list<std::string_view> ends)
{
    return std::any_of(ends.begin(), ends.end(), [&](std::string_view end) { return word.ends_with(end); });
}

/// One word of a name, upper case (DB, PASS in DB_PASS; APIKEY in apiKey). `alone`: the name's only word.
bool is_secret_word(std::string_view word, bool alone)
{
    for (const std::string_view part : {"PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "CREDENTIAL", "PRIVATE"})
        if (word.find(part) != std::string_view::npos)
            return true;
    if (ends_with_one_of(word, {"TOKEN", "TOKENS", "KEY", "KEYS", "PASS", "COOKIE", "COOKIES"}))
        return true; // not TOKENIZERS, KEYBOARD, KEYRING, PASSTHROUGH
    if (word.starts_with("AUTH") && !is_one_of(word, {"AUTHOR", "AUTHORS"}))
        return true;
    if (is_one_of(word, {"PAT", "JWT"}))
        return true;
    return word == "PWD" && !alone; // DB_PWD; not PWD and OLDPWD, the shell's working directories
}

} // namespace

bool is_secret_name(std::string_view name)
{
    std::array<std::string, 8> words;
    std::size_t count = 0;
    for (std::size_t at = 0; at < name.size();) {
        while (at < name.size() && !std::isalnum(static_cast<unsigned char>(name[at])))
            ++at;
        std::string word;
        for (; at < name.size() && std::isalnum(static_cast<unsigned char>(name[at])); ++at)
            word += static_cast<char>(std::toupper(static_cast<unsigned char>(name[at])));
        if (!word.empty() && count < words.size())
            words[count++] = std::move(word);
    }
    return std::any_of(words.begin(), words.begin() + count,
                       [&](const std::string& word) { return is_secret_word(word, count == 1); });
}

namespace {

/// What a byte of a text is to the screen: a separator of a secret's shape ('=' ':' '@'), the
/// first byte of a token's prefix, a JWT, a PEM block or an auth scheme, a token's byte, a byte
/// that JSON escapes or that starts or continues a multi-byte character (`unplain`), or else.
enum class ByteClass : unsigned char { other, token, starts_shape, separator, unplain };

/// The classes of the bytes; `unplain` marked only when `mark_unplain` (else such a byte is `other`).
constexpr std::array<ByteClass, 256> make_byte_classes(bool mark_unplain)
{
    std::array<ByteClass, 256> classes{};
    for (int c = 0; c < 256; ++c) {
        const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (alnum || c == '_' || c == '-')
            classes[c] = ByteClass::token;
        else if (mark_unplain && (c < 0x20 || c >= 0x80 || c == '"' || c == '\\'))
            classes[c] = ByteClass::unplain;
    }
    for (const unsigned char c : std::string_view("egxhsAbB-"))
        classes[c] = ByteClass::starts_shape;
    for (const unsigned char c : std::string_view("=:@"))
        classes[c] = ByteClass::separator;
    return classes;
}

constexpr std::array<ByteClass, 256> k_byte_classes = make_byte_classes(false);
constexpr std::array<ByteClass, 256> k_plain_byte_classes = make_byte_classes(true);

enum class Screen { clear, may_hold_secret, unplain };

/// One pass over `text` with the byte classes `classes`: the first of a secret's shape or an
/// unplain byte it meets, or clear.
Screen screen(std::string_view text, const std::array<ByteClass, 256>& classes)
{
    const auto class_of = [&](char c) { return classes[static_cast<unsigned char>(c)]; };
    const char* at = text.data();
    const char* const end = at + text.size();
    while (at != end) {
        ByteClass byte = class_of(*at);
        if (byte == ByteClass::separator)
            return Screen::may_hold_secret; // pairs, URLs, user:password@host
        if (byte == ByteClass::unplain)
            return Screen::unplain;
        if (byte == ByteClass::other) {
            ++at;
            continue;
        }
        // A word starts here: only its first byte can start a secret's shape; the rest of it is
        // passed in a tight loop, since most of a path or a name is words.
        if (byte == ByteClass::starts_shape &&
            redaction::starts_secret_shape(std::string_view(at, static_cast<std::size_t>(end - at))))
            return Screen::may_hold_secret;
        for (++at; at != end; ++at) {
            byte = class_of(*at);
            if (byte == ByteClass::separator)
                return Screen::may_hold_secret;
            if (byte == ByteClass::other || byte == ByteClass::unplain)
                break;
        }
    }
    return Screen::clear;
}

} // namespace

bool may_hold_secret(std::string_view text)
{
    return screen(text, k_byte_classes) == Screen::may_hold_secret;
}

bool is_plain_and_clear(std::string_view text)
{
    return screen(text, k_plain_byte_classes) == Screen::clear;
}

std::string redact_text(std::string_view text)
{
    std::string out(text);
    if (!may_hold_secret(out))
        return out;
    redaction::redact_pem_blocks(out);
    redaction::redact_url_credentials(out);
    redaction::redact_userinfo(out);
    redaction::redact_auth_schemes(out);
    redaction::redact_secret_pairs(out);
    redaction::redact_known_tokens(out);
    return out;
}

namespace {

/// The value of "-p" (mysql's password option) and of an option with a secret name: redacted.
/// Returns whether `argv[i]` was such an option; `i` then stands at the last word it took.
bool redact_option(std::vector<std::string>& argv, std::size_t& i)
{
    std::string& word = argv[i];
    if (word.size() < 2 || word[0] != '-')
        return false;
    const bool next_is_value = i + 1 < argv.size() && !argv[i + 1].starts_with("-");
    if (word == "-p") {
        if (next_is_value)
            argv[++i] = k_redacted;
        return true;
    }
    if (word.starts_with("-p") && word[1] != '-') {
        word = std::string("-p") + k_redacted; // -pSECRET
        return true;
    }
    const std::size_t eq = word.find('=');
    const std::string_view name = std::string_view(word).substr(0, eq);
    if (!is_secret_name(name))
        return false;
    if (eq != std::string::npos)
        word = std::string(name) + "=" + k_redacted;
    else if (next_is_value)
        argv[++i] = k_redacted;
    return true;
}

} // namespace

void redact_arguments(std::vector<std::string>& argv)
{
    for (std::size_t i = 0; i < argv.size(); ++i)
        if (!redact_option(argv, i))
            argv[i] = redact_text(argv[i]);
}

bool looks_like_credential(std::string_view value)
{
    if (redaction::is_jwt(value) || value.starts_with("-----BEGIN"))
        return true;
    if (redaction::starts_secret_shape(value) && value.size() >= 12 && !value.starts_with("eyJ") &&
        std::all_of(value.begin(), value.end(), [](unsigned char c) { return redaction::is_token_char(c); }))
        return true; // ghp_..., AKIA...: as redact_known_tokens finds them
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
    return redact_text(value);
}

} // namespace importscope
