#include "cli/usage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace importscope::cli {

namespace {

/// Levenshtein distance, for words of a few letters.
std::size_t edit_distance(const std::string& a, const std::string& b)
{
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates)
{
    if (word.size() <= 2)
        return {}; // a one-letter option: every other one is as near
    const std::string* best = nullptr;
    std::size_t best_distance = 0;
    for (const auto& candidate : candidates) {
        const std::size_t distance = edit_distance(word, candidate);
        if (!best || distance < best_distance) {
            best = &candidate;
            best_distance = distance;
        }
    }
    // Close enough to be a slip of the keyboard: a third of the word, and at least one letter.
    if (!best || best_distance == 0 || best_distance > std::max<std::size_t>(1, word.size() / 3))
        return {};
    return fmt::format(" (did you mean {}?)", *best);
}

std::vector<std::string> option_names(const CLI::App& app)
{
    std::vector<std::string> names;
    for (const CLI::Option* option : app.get_options()) {
        for (const auto& name : option->get_lnames())
            names.push_back("--" + name);
        for (const auto& name : option->get_snames())
            names.push_back("-" + name);
    }
    return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app)
{
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    return names;
}

std::string short_help(const CLI::App& app)
{
    std::string text = fmt::format("{}\n\nusage: importscope COMMAND [OPTIONS] ...\n\ncommands:\n", app.get_description());
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        std::string description = sub->get_description();
        description = description.substr(0, std::min(description.find('\n'), description.find(". ")));
        if (description.ends_with(':'))
            description.pop_back();
        text += fmt::format("  {:<8} {}\n", sub->get_name(), description);
    }
    text += "\nRun 'importscope COMMAND --help' for a command's options, 'importscope --help' for all.\n";
    return text;
}

} // namespace importscope::cli
