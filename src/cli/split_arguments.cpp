// split_target_arguments() (run_command.hpp): importscope's words apart from the target's and from
// the COMMAND after `--`, by the option arity that CLI11 declares for `run`.

#include "importscope/cli/run_command.hpp"

namespace importscope::cli {

SplitWords split_target_arguments(const CLI::App& run, const std::vector<std::string>& words)
{
    std::vector<std::string> own;
    std::size_t i = 0;
    auto rest = [&](std::size_t from) {
        return std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(std::min(from, words.size())),
                                        words.end());
    };
    for (; i < words.size(); ++i) {
        const std::string& word = words[i];
        if (word == "--") {
            // Whatever follows is a command, found as a shell finds it.
            if (i + 1 < words.size())
                return {own, words[i + 1], rest(i + 2)};
            return {own, std::nullopt, {}};
        }
        if (word == "-m" || word == "-c") {
            own.push_back(word);
            if (i + 1 < words.size())
                own.push_back(words[i + 1]);
            return {own, std::nullopt, rest(i + 2)};
        }
        if (word.size() > 2 && word[0] == '-' && (word[1] == 'm' || word[1] == 'c')) {
            own.push_back(word); // -mpkg.mod, -c'code'
            return {own, std::nullopt, rest(i + 1)};
        }
        if (word.size() > 1 && word[0] == '-') {
            own.push_back(word);
            const std::string name = word.substr(0, word.find('='));
            const CLI::Option* option = run.get_option_no_throw(name);
            const bool takes_value = option && option->get_expected_min() > 0 && name == word &&
                                     !(name.size() > 2 && name[1] != '-'); // -o=FILE / -oFILE carry it
            if (takes_value && i + 1 < words.size())
                own.push_back(words[++i]);
            continue;
        }
        own.push_back(word); // the script
        return {own, std::nullopt, rest(i + 1)};
    }
    return {own, std::nullopt, {}};
}

} // namespace importscope::cli
