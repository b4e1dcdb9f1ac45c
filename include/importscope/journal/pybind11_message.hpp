#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace importscope::journal {

/// The type name in pybind11's refusal to register a type twice, `generic_type: type "Runtime" is
/// already registered!`, anywhere in `message`; nullopt when the message has none. The hooks record
/// who owns that type when they see it, and the analysis explains it.
inline std::optional<std::string> already_registered_type(std::string_view message)
{
    constexpr std::string_view k_head = "generic_type: type \"";
    constexpr std::string_view k_tail = "\" is already registered!";
    for (std::size_t at = message.find(k_head); at != std::string_view::npos; at = message.find(k_head, at + 1)) {
        const std::size_t name = at + k_head.size();
        const std::size_t quote = message.find('"', name);
        if (quote == std::string_view::npos)
            return std::nullopt;
        if (quote > name && message.substr(quote).starts_with(k_tail))
            return std::string(message.substr(name, quote - name));
    }
    return std::nullopt;
}

} // namespace importscope::journal
