#include "importscope/report/redact_paths.hpp"

#include "importscope/report/document.hpp"

#include "importscope/util/redact.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <cctype>
#include <utility>
#include <variant>

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

void redact_secrets_in(nlohmann::json& value);

/// An object's member `value` under `key`: a command line's values of secret-looking options,
/// else the secrets of each string.
void redact_secrets_at(const std::string& key, nlohmann::json& value)
{
    if (is_command_line(key) && value.is_array() &&
        std::all_of(value.begin(), value.end(), [](const nlohmann::json& w) { return w.is_string(); })) {
        auto words = value.get<std::vector<std::string>>();
        redact_arguments(words);
        value = words;
    } else {
        redact_secrets_in(value);
    }
}

void redact_secrets_in(nlohmann::json& value)
{
    if (value.is_string()) {
        value = redact_text(value.get_ref<const std::string&>());
    } else if (value.is_array()) {
        for (auto& item : value)
            redact_secrets_in(item);
    } else if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it)
            redact_secrets_at(it.key(), *it);
    }
}

template <typename T>
struct IsVariant : std::false_type {
};
template <typename... T>
struct IsVariant<std::variant<T...>> : std::true_type {
};

/// The secret rules and --redact-paths on each declared field of a record (json_fields.hpp),
/// as redact_secrets and redact_paths treat the field's JSON form.
class Redactor {
public:
    explicit Redactor(const PathRedaction* paths) : m_paths(paths) {}

    template <typename M>
    void required(const char* key, M& member)
    {
        visit(key, member);
    }
    template <typename M>
    void field(const char* key, M& member)
    {
        visit(key, member);
    }
    template <typename M>
    void optional(const char* key, M& member)
    {
        visit(key, member);
    }
    template <typename M>
    void nullable(const char* key, M& member)
    {
        visit(key, member);
    }
    template <typename M>
    void optional_nullable(const char* key, M& member)
    {
        visit(key, member);
    }
    template <typename M, typename Tag>
    void tagged(const char* key, M& member, const Tag& /*tag*/)
    {
        visit(key, member);
    }
    void rest(nlohmann::json& member) { tree({}, member); }

    template <typename M>
    void visit(const std::string& key, M& member)
    {
        if constexpr (std::is_same_v<M, std::string>) {
            text(member);
        } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
            if (is_command_line(key))
                redact_arguments(member);
            else
                for (std::string& item : member)
                    item = redact_text(item);
            if (m_paths)
                for (std::string& item : member)
                    m_paths->apply(item);
        } else if constexpr (std::is_same_v<M, nlohmann::json>) {
            tree(key, member);
        } else if constexpr (json_fields::Declared<M>) {
            M::fields(*this, member);
        } else if constexpr (IsVariant<M>::value) {
            std::visit([&](auto& alternative) { visit(key, alternative); }, member);
        } else if constexpr (requires { member.json; }) {
            tree(key, member.json); // the evidence of a kind this importscope does not know, as written
        } else if constexpr (json_fields::IsOptional<M>::value) {
            if (member)
                visit(key, *member);
        } else if constexpr (json_fields::IsVector<M>::value) {
            for (auto& item : member)
                visit(key, item);
        } else {
            static_assert(std::is_arithmetic_v<M> || std::is_enum_v<M>,
                          "a report field that redaction does not know: say how its strings are redacted");
        }
    }

private:
    void text(std::string& value) const
    {
        value = redact_text(value);
        if (m_paths)
            m_paths->apply(value);
    }
    void tree(const std::string& key, nlohmann::json& value) const
    {
        redact_secrets_at(key, value);
        if (m_paths)
            walk(value, *m_paths);
    }

    const PathRedaction* m_paths;
};

} // namespace

void redact_secrets(nlohmann::json& report)
{
    redact_secrets_in(report);
}

void redact(Document& report, const PathRedaction* paths)
{
    Redactor redactor(paths);
    redactor.visit({}, report);
}

} // namespace importscope::report
