#include "importscope/report/redact_paths.hpp"
#include "importscope/util/redact.hpp"

#include <catch2/catch.hpp>

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
    CHECK(value["message"] == "a\\x1b[2Jb\\x00c\nd");
}
