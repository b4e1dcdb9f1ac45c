#include "importscope/util/process_facts.hpp"

#include <array>
#include <utility>

#include <sys/wait.h>

namespace importscope {

namespace {

constexpr std::array<std::pair<ExitKnownBy, std::string_view>, 6> k_exit_words{{
    {ExitKnownBy::waited, "waited"},
    {ExitKnownBy::exit, "exit"},
    {ExitKnownBy::os_exit, "os._exit"},
    {ExitKnownBy::signal, "signal"},
    {ExitKnownBy::reaped, "reaped"},
    {ExitKnownBy::killed, "killed"},
}};

} // namespace

std::string_view to_string(ExitKnownBy how)
{
    for (const auto& [known_by, word] : k_exit_words)
        if (known_by == how)
            return word;
    return "waited";
}

std::optional<ExitKnownBy> exit_known_by(std::string_view word)
{
    for (const auto& [known_by, known_word] : k_exit_words)
        if (known_word == word)
            return known_by;
    return std::nullopt;
}

ProcessExit ProcessExit::from_wait_status(int status, ExitKnownBy how)
{
    ProcessExit exit;
    exit.how = how;
    if (WIFEXITED(status))
        exit.code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) {
        exit.signal = WTERMSIG(status);
        exit.core_dumped = WCOREDUMP(status);
    }
    return exit;
}

} // namespace importscope
