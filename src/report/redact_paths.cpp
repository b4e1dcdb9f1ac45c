#include "importscope/report/redact_paths.hpp"


#include "importscope/util/redact.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <cctype>
#include <utility>

namespace importscope::report {

namespace {

void replace_all(std::string& text, const std::string& from, const std::string& to)
{
    if (from.empty())
        return;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

/// The user name where it stands as a whole word in a path or text (not inside another word).
void replace_word(std::string& text, const std::string& word, const std::string& to)
{
    if (word.empty())
        return;
    auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const bool starts = at == 0 || !is_word(text[at - 1]);
        const bool ends = at + word.size() == text.size() || !is_word(text[at + word.size()]);
        if (starts && ends) {
            text.replace(at, word.size(), to);
            at += to.size() - 1;
        }
    }
}

void walk(nlohmann::json& value, const PathRedaction& redaction)
{
    if (value.is_string()) {
        redaction.apply(value.get_ref<std::string&>());
    } else if (value.is_array()) {
        for (auto& item : value)
            walk(item, redaction);
    } else if (value.is_object()) {
        for (auto& [key, item] : value.items())
            walk(item, redaction);
    }
}

} // namespace

PathRedaction::PathRedaction(std::string home, std::string user) : m_home(std::move(home)), m_user(std::move(user))
{
    while (m_home.size() > 1 && m_home.back() == '/')
        m_home.pop_back();
    if (m_home.size() <= 1)
        m_home.clear();
}

void PathRedaction::apply(std::string& text) const
{
    replace_all(text, m_home, "~");
    replace_word(text, m_user, "<user>");
}

void redact_paths(nlohmann::json& report, const PathRedaction& redaction)
{
    walk(report, redaction);
}

} // namespace importscope::report

namespace importscope::report {

namespace {

bool is_command_line(const std::string& key)
{
    return key == "argv" || key == "args" || key == "interpreter_options";
}

void redact_secrets_in(nlohmann::json& value)
{
    if (value.is_string()) {
        value = redact_text(value.get_ref<const std::string&>());
    } else if (value.is_array()) {
        for (auto& item : value)
            redact_secrets_in(item);
    } else if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (is_command_line(it.key()) && it->is_array() &&
                std::all_of(it->begin(), it->end(), [](const nlohmann::json& w) { return w.is_string(); })) {
                auto words = it->get<std::vector<std::string>>();
                redact_arguments(words);
                *it = words;
            } else {
                redact_secrets_in(*it);
            }
        }
    }
}

} // namespace

void redact_secrets(nlohmann::json& report)
{
    redact_secrets_in(report);
}

} // namespace importscope::report
