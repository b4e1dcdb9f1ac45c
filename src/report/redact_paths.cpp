#include "importscope/report/redact_paths.hpp"

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

void walk(nlohmann::json& value, const std::string& home, const std::string& user)
{
    if (value.is_string()) {
        std::string text = value.get<std::string>();
        if (home.size() > 1)
            replace_all(text, home, "~");
        replace_word(text, user, "<user>");
        value = text;
    } else if (value.is_array()) {
        for (auto& item : value)
            walk(item, home, user);
    } else if (value.is_object()) {
        for (auto& [key, item] : value.items())
            walk(item, home, user);
    }
}

} // namespace

void redact_paths(nlohmann::json& report, const std::string& home, const std::string& user)
{
    std::string trimmed = home;
    while (trimmed.size() > 1 && trimmed.back() == '/')
        trimmed.pop_back();
    walk(report, trimmed, user);
}

} // namespace importscope::report
