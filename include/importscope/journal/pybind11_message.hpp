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

/// The type name in nanobind's warning that a type was bound twice, `nanobind: type 'Runtime' was
/// already registered!` (nanobind keeps the first binding and makes the second module's type
/// another Python type), anywhere in `message`; nullopt when the message has none.
inline std::optional<std::string> nanobind_rebound_type(std::string_view message)
{
    constexpr std::string_view k_head = "nanobind: type '";
    constexpr std::string_view k_tail = "' was already registered!";
    const std::size_t at = message.find(k_head);
    if (at == std::string_view::npos)
        return std::nullopt;
    const std::size_t name = at + k_head.size();
    const std::size_t tail = message.find(k_tail, name);
    if (tail == std::string_view::npos || tail == name)
        return std::nullopt;
    return std::string(message.substr(name, tail - name));
}

/// A type that a binding library was asked to bind a second time, as its message says it.
struct Rebinding {
    std::string type_name;
    const char* binding; ///< "pybind11" (an ImportError) or "nanobind" (a RuntimeWarning)
};

/// Either library's message, anywhere in `message`; nullopt when it is neither.
inline std::optional<Rebinding> rebound_type(std::string_view message)
{
    if (auto type_name = already_registered_type(message))
        return Rebinding{std::move(*type_name), "pybind11"};
    if (auto type_name = nanobind_rebound_type(message))
        return Rebinding{std::move(*type_name), "nanobind"};
    return std::nullopt;
}

} // namespace importscope::journal
