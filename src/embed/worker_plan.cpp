// The Python-free half of the worker's contract, used by the supervisor's child before it loads a
// worker and by the worker itself.

#include "importscope/embed/worker.hpp"
#include "importscope/journal/run_layout.hpp"

#include <cstdlib>

namespace importscope::embed {

void export_to_children(const WorkerPlan& plan)
{
    ::setenv(journal::k_env_run_dir, plan.run_dir.c_str(), 1);
    ::setenv(journal::k_env_match, journal::join_patterns(plan.match).c_str(), 1);
    ::setenv(journal::k_env_follow, plan.follow ? "1" : "0", 1);
    if (!plan.problem_address.empty())
        ::setenv(journal::k_env_problems, plan.problem_address.c_str(), 1);
    if (!plan.fallback_dynload.empty())
        ::setenv(journal::k_env_fallback_dynload, plan.fallback_dynload.c_str(), 1);
    if (plan.follow && !plan.bootstrap_dir.empty()) {
        ::setenv("PYTHONPATH", children_python_path(plan.bootstrap_dir).c_str(), 1);
        ::setenv(journal::k_env_bootstrap, plan.bootstrap_dir.c_str(), 1);
    }
}

std::string children_python_path(const std::string& bootstrap_dir)
{
    const char* old = std::getenv("PYTHONPATH");
    return old && *old ? bootstrap_dir + ":" + old : bootstrap_dir;
}

std::optional<std::string> target_python_path(const WorkerPlan& plan, std::string_view children_path)
{
    if (!plan.follow || plan.bootstrap_dir.empty() || !children_path.starts_with(plan.bootstrap_dir))
        return std::nullopt;
    const std::string_view rest = children_path.substr(plan.bootstrap_dir.size());
    if (rest.empty())
        return std::string();
    if (rest[0] != ':')
        return std::nullopt;
    return std::string(rest.substr(1));
}

std::vector<std::string> python_command_line(const std::string& python, const Target& target)
{
    std::vector<std::string> argv = {python};
    argv.insert(argv.end(), target.interpreter_options.begin(), target.interpreter_options.end());
    switch (target.kind) {
    case TargetKind::module:
        argv.insert(argv.end(), {"-m", target.value});
        break;
    case TargetKind::command:
        argv.insert(argv.end(), {"-c", target.value});
        break;
    case TargetKind::stdin_script:
        argv.emplace_back("-");
        break;
    case TargetKind::script:
    case TargetKind::program:
        // A script whose name starts with a dash would be read as an option.
        argv.push_back(target.value.starts_with("-") ? "./" + target.value : target.value);
        break;
    }
    argv.insert(argv.end(), target.args.begin(), target.args.end());
    return argv;
}

} // namespace importscope::embed
