#include "importscope/report/escape.hpp"
#include "importscope/report/redact_paths.hpp"
#include "importscope/util/json_writer.hpp"
#include "importscope/util/redact.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using importscope::is_secret_name;
using importscope::redact_arguments;
using importscope::redact_text;
using Words = std::vector<std::string>;

TEST_CASE("the values of secret options are redacted, the options kept", "[redact]")
{
    Words argv = {"vllm", "serve", "m", "--api-key", "abc123", "--hf-token=hf_abcdefghijklmn", "--password", "p",
                  "--port", "8000", "--token", "--next"};
    redact_arguments(argv);
    CHECK(argv == Words{"vllm", "serve", "m", "--api-key", "<redacted>", "--hf-token=<redacted>", "--password",
                        "<redacted>", "--port", "8000", "--token", "--next"});
}

TEST_CASE("credentials in URLs and tokens in text are redacted", "[redact]")
{
    CHECK(redact_text("postgres://app:s3cret@db:5432/x") == "postgres://app:<redacted>@db:5432/x");
    CHECK(redact_text("see redis://:pw@cache:6379/0 now") == "see redis://:<redacted>@cache:6379/0 now");
    CHECK(redact_text("https://ghp_abcdefghijklmnopqrst@github.com/o/r") == "https://<redacted>@github.com/o/r");
    CHECK(redact_text("https://user@host/path") == "https://user@host/path");
    CHECK(redact_text("invalid token hf_abcdefghijklmnop given") == "invalid token <redacted> given");
    CHECK(redact_text("a task-scheduler and sk-short") == "a task-scheduler and sk-short");
    CHECK(redact_text("/usr/lib/python3/dist-packages/x.py") == "/usr/lib/python3/dist-packages/x.py");
}

TEST_CASE("secret names include PASSWD and _PWD, not the shell's PWD", "[redact]")
{
    CHECK(is_secret_name("MYSQL_PASSWD"));
    CHECK(is_secret_name("DB_PWD"));
    CHECK(is_secret_name("--api-key"));
    CHECK_FALSE(is_secret_name("PWD"));
    CHECK_FALSE(is_secret_name("OLDPWD"));
    CHECK_FALSE(is_secret_name("--port"));
}

TEST_CASE("a report tree is redacted in every string and every command line", "[redact]")
{
    nlohmann::json report = {{"run", {{"argv", {"importscope", "run", "x.py", "--api-key", "k"}}}},
                             {"processes", {{{"argv", {"python", "x.py", "--api-key=k"}}}}},
                             {"problems", {"cannot reach postgres://u:pw@h/db"}}};
    importscope::report::redact_secrets(report);
    CHECK(report["run"]["argv"] == nlohmann::json({"importscope", "run", "x.py", "--api-key", "<redacted>"}));
    CHECK(report["processes"][0]["argv"][2] == "--api-key=<redacted>");
    CHECK(report["problems"][0] == "cannot reach postgres://u:<redacted>@h/db");
}

TEST_CASE("control characters are escaped for the renderers", "[redact]")
{
    nlohmann::json value = {{"message", std::string("a\x1b[2Jb\0c\nd", 10)}};
    importscope::report::escape_control_characters(value);
    CHECK(value["message"] == "a\\x1b[2Jb\\x00c\\nd"); // a newline too: no line of its own
}

// The corpus of docs/secrets.md: every shape the rules redact, and ordinary text they leave alone.
// All the secrets here are made up.
TEST_CASE("the secret rules redact every documented shape and leave ordinary text alone", "[redact]")
{
    const std::vector<std::pair<std::string, std::string>> corpus = {
        // Tokens of a known prefix, alone, in a dotted name, in a sentence.
        {"ghp_0123456789abcdefABCDEF0123456789abcd", "<redacted>"},
        {"pkg.ghp_0123456789abcdefABCDEF0123456789abcd.sub", "pkg.<redacted>.sub"},
        {"gho_abcdefghij0123456789", "<redacted>"},
        {"use github_pat_11ABCDEFG0123456789_abcdefghij now", "use <redacted> now"},
        {"glpat-abcdefghij12345", "<redacted>"},
        {"xoxb-1234567890-abcdefghij", "<redacted>"},
        {"xoxp-1234567890-abcdefghij", "<redacted>"},
        {"key AKIAIOSFODNN7EXAMPLE", "key <redacted>"},
        {"sk-proj-abcdefghijkl", "<redacted>"},
        {"invalid token hf_abcdefghijklmnop given", "invalid token <redacted> given"},
        // Every other documented prefix, each of which may_hold_secret screens by its first two bytes.
        {"ghs_abcdefghij0123456789", "<redacted>"},
        {"ghu_abcdefghij0123456789", "<redacted>"},
        {"ghr_abcdefghij0123456789", "<redacted>"},
        {"xoxa-1234567890-abcdefghij", "<redacted>"},
        {"xoxs-1234567890-abcdefghij", "<redacted>"},
        {"xoxr-1234567890-abcdefghij", "<redacted>"},
        {"key ASIAIOSFODNN7EXAMPLE", "key <redacted>"},
        {"/home/user/site-packages/hf_abcdefghijklmnop/x.py", "/home/user/site-packages/<redacted>/x.py"},
        // JWT, PEM private keys.
        {"session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.c2lnbmF0dXJl end", "session <redacted> end"},
        {"a\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\nb", "a\n<redacted>\nb"},
        {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1r", "<redacted>"},
        // Passwords of URLs, and of user:password@host without a scheme.
        {"postgres://app:s3cret@db:5432/x", "postgres://app:<redacted>@db:5432/x"},
        {"see redis://:pw@cache:6379/0 now", "see redis://:<redacted>@cache:6379/0 now"},
        {"https://ghp_abcdefghijklmnopqrst@github.com/o/r", "https://<redacted>@github.com/o/r"},
        {"deploy:userpw-333@db.internal", "deploy:<redacted>@db.internal"},
        {"mysql://root@localhost and root:toor@10.0.0.1", "mysql://root@localhost and root:<redacted>@10.0.0.1"},
        // Pairs whose key is a secret name: key=value, key: value, JSON and Python dicts.
        {"login failed: password=hunter2 user=bob", "login failed: password=<redacted> user=bob"},
        {"api_key=abc123&page=2", "api_key=<redacted>&page=2"},
        {"DB_PASS=\"x y\"", "DB_PASS=\"<redacted>\""},
        {"{\"password\": \"hunter2\", \"user\": \"bob\"}", "{\"password\": \"<redacted>\", \"user\": \"bob\"}"},
        {"{'client_secret': 'abc', 'n': 1}", "{'client_secret': '<redacted>', 'n': 1}"},
        {"RuntimeError('{\\'password\\': \\'pw\\'}')", "RuntimeError('{\\'password\\': \\'<redacted>\\'}')"},
        {"token: abc123", "token: <redacted>"},
        {"accessToken=abc123", "accessToken=<redacted>"},
        // Auth headers.
        {"Authorization: Bearer abc.def", "Authorization: Bearer <redacted>"},
        {"Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic <redacted>"},
        {"curl -H 'authorization: bearer abcdef'", "curl -H 'authorization: bearer <redacted>'"},
        // Ordinary text: unchanged.
        {"password_utils", "password_utils"},
        {"keyring", "keyring"},
        {"tokenizers.models", "tokenizers.models"},
        {"/usr/lib/python3/dist-packages/x.py", "/usr/lib/python3/dist-packages/x.py"},
        {"File \"/x/y.py\", line 3, in <module>", "File \"/x/y.py\", line 3, in <module>"},
        {"KeyError: 'API_KEY'", "KeyError: 'API_KEY'"},
        {"if password == expected:", "if password == expected:"},
        {"json.dumps(x, sort_keys=True)", "json.dumps(x, sort_keys=True)"},
        {"git@github.com:org/repo.git", "git@github.com:org/repo.git"},
        {"mail bob@example.com at 12:30", "mail bob@example.com at 12:30"},
        {"a task-scheduler and sk-short", "a task-scheduler and sk-short"},
        {"std::string and a::b", "std::string and a::b"},
        {"the Bearer of bad news", "the Bearer of bad news"},
        {"eyJhbGciOiJIUzI1NiJ9", "eyJhbGciOiJIUzI1NiJ9"},
    };
    for (const auto& [input, expected] : corpus) {
        INFO(input);
        CHECK(redact_text(input) == expected);
        if (input == expected)
            CHECK(redact_text(expected) == expected);
    }
}

TEST_CASE("may_hold_secret passes every string the rules would change", "[redact]")
{
    for (const std::string text : {"ghp_0123456789abcdefABCDEF", "a eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.c2ln",
                                   "Bearer abcdef", "BEARER abcdef", "bAsIc dXNlcjpw",
                                   "-----BEGIN RSA PRIVATE KEY-----", "password=x", "u:p@h",
                                   // a shape at the start of a word after others, a separator inside a word
                                   "/lib/site/pkg.ghp_0123456789abcdef", "some/path_with=value", "xx.sk-proj-abc"})
        CHECK(importscope::may_hold_secret(text));
    for (const std::string text : {"numpy.core._multiarray_umath", "/usr/lib/python3.11/importlib/__init__.py",
                                   "<module>", "password_utils", "tokenizers",
                                   // a token's prefix inside a word is no token
                                   "/lib/mysk-proj/xghp_0123456789abcdef.py", "task-scheduler",
                                   // a scheme's name followed by no space, or misspelt by a byte
                                   "Bearers x", "b`sic x"})
        CHECK_FALSE(importscope::may_hold_secret(text));
}

TEST_CASE("is_plain_and_clear is plain ASCII that may_hold_secret passes, also screened in two at a '/'", "[redact]")
{
    // The report screens a path's directory once and then only what follows its last '/': that
    // must be the screen of the whole. Strings made of the pieces the rules look for, at random.
    const std::vector<std::string> pieces = {"/",           "/",
                                             "a",           "b",
                                             "e",           "s",
                                             "h",           "x",
                                             "g",           "A",
                                             "-",           "_",
                                             ".",           " ",
                                             "=",           ":",
                                             "@",           "\"",
                                             "\\",          "\n",
                                             "\x7f",        "\xc3\xa9",
                                             "eyJ",         "bearer",
                                             "Basic",       " ",
                                             "-----BEGIN",  "ghp_",
                                             "hf_",         "sk-",
                                             "AKIA",        "xoxb-",
                                             "github_pat_", "site-packages",
                                             "src",         "0123456789"};
    const auto plain_and_clear = [](std::string_view text) {
        const bool ascii =
            std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
        return ascii && !importscope::json_writer::needs_escape(text) && !importscope::may_hold_secret(text);
    };
    std::mt19937_64 random(7);
    std::size_t clear = 0;
    for (int n = 0; n < 200'000; ++n) {
        std::string text;
        for (std::size_t count = random() % 9; count > 0; --count)
            text += pieces[random() % pieces.size()];
        INFO(text);
        const bool whole = importscope::is_plain_and_clear(text);
        REQUIRE(whole == plain_and_clear(text));
        clear += whole ? 1 : 0;
        for (std::size_t slash = text.find('/'); slash != std::string::npos; slash = text.find('/', slash + 1)) {
            const std::string_view head = std::string_view(text).substr(0, slash + 1);
            const std::string_view tail = std::string_view(text).substr(slash + 1);
            REQUIRE((importscope::is_plain_and_clear(head) && importscope::is_plain_and_clear(tail)) == whole);
        }
    }
    CHECK(clear > 10'000); // both answers were tried often
    CHECK(clear < 190'000);
}

TEST_CASE("secret names are told by their words", "[redact]")
{
    for (const char* name : {"MYAPP_DB_PASS", "DBPASS", "MYAPP_PASSPHRASE", "MYAPP_PRIVATE", "SSH_PRIVATE_KEY",
                             "HF_TOKEN", "accessToken", "apiKey", "CLIENT_SECRET", "MYSQL_PASSWD", "DB_PWD", "AUTH",
                             "Authorization", "--pat", "--cookie", "--db-pass", "--api-key", "SESSION_JWT",
                             "AWS_CREDENTIALS"})
        CHECK(is_secret_name(name));
    for (const char* name : {"PYTHONPATH", "PATH", "KEYBOARD_LAYOUT", "TOKENIZERS_PARALLELISM", "PWD", "OLDPWD",
                             "PASSTHROUGH", "AUTHOR", "--port", "HOME", "LANG"})
        CHECK_FALSE(is_secret_name(name));
}

TEST_CASE("the values of -p and of secret-named options are hidden in every form", "[redact]")
{
    Words argv = {"mysql", "-phunter2", "-p", "hunter3", "--db-pass", "x1", "--pat", "x2", "--cookie", "x3",
                  "deploy:pw@db", "--port", "3306", "--token", "--next", "password=x4", "--hf-token=x5"};
    redact_arguments(argv);
    CHECK(argv == Words{"mysql", "-p<redacted>", "-p", "<redacted>", "--db-pass", "<redacted>", "--pat",
                        "<redacted>", "--cookie", "<redacted>", "deploy:<redacted>@db", "--port", "3306",
                        "--token", "--next", "password=<redacted>", "--hf-token=<redacted>"});
}

TEST_CASE("a variable's value is redacted whole by its name or shape, in part by the text rules", "[redact]")
{
    using importscope::redact_variable;
    CHECK(redact_variable("MYAPP_SESSION", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.c2lnbmF0dXJl") == "<redacted>");
    CHECK(redact_variable("MYAPP_DB_PASS", "x") == "<redacted>");
    CHECK(redact_variable("MYAPP_URL", "postgres://u:pw@h/db") == "postgres://u:<redacted>@h/db");
    CHECK(redact_variable("KEYBOARD_LAYOUT", "us-intl") == "us-intl");
    CHECK(redact_variable("TOKENIZERS_PARALLELISM", "false") == "false");
}
