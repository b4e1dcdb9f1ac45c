#include "importscope/supervisor/worker_launch.hpp"

#include "importscope/util/console.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <sysexits.h>
#include <unistd.h>

namespace importscope::supervisor {

namespace {

/// Executes a program that is not Python, whose Python descendants trace themselves.
[[noreturn]] void exec_program(const embed::WorkerPlan& plan, embed::StartChannel& start)
{
    std::vector<std::string> words = {plan.target.program_argv0};
    words.insert(words.end(), plan.target.args.begin(), plan.target.args.end());
    std::vector<char*> argv;
    argv.reserve(words.size() + 1);
    for (auto& word : words)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    start.tell(embed::start_word::exec);
    if (plan.stdin_closed)
        ::close(STDIN_FILENO); // as the shell gave it to importscope (<&-), not the /dev/null in its place
    ::execv(plan.target.value.c_str(), argv.data());
    int err = errno;
    if (err == ENOEXEC) { // a script without a #! line: a shell runs it with sh, and so does this
        std::vector<char*> sh_argv = {const_cast<char*>("sh"), const_cast<char*>(plan.target.value.c_str())};
        sh_argv.insert(sh_argv.end(), argv.begin() + 1, argv.end());
        ::execv("/bin/sh", sh_argv.data());
        err = errno;
    }
    print_to_stderr(fmt::format("importscope: error: cannot execute {}: {}\n", plan.target.value, std::strerror(err)));
    start.tell(embed::start_word::failed); // the status below says it too
    // As a shell says it: 127 for a program that is not there, 126 for one that cannot be run.
    ::_exit(err == ENOENT ? 127 : 126);
}

std::string dl_failure()
{
    const char* text = ::dlerror();
    return text ? text : "unknown error";
}

} // namespace

[[noreturn]] void launch_worker(const embed::WorkerPlan& plan, const PythonRuntime& runtime, int start_fd)
{
    embed::StartChannel start(start_fd);
    embed::export_to_children(plan);
    if (plan.target.kind == embed::TargetKind::program)
        exec_program(plan, start);
    // The interpreter's own library first and for everything after it, as python's executable
    // links it: the worker and the target's extensions bind to it.
    if (!::dlopen(runtime.libpython.c_str(), RTLD_NOW | RTLD_GLOBAL))
        start.fail(fmt::format("cannot load {}: {}", runtime.libpython, dl_failure()));
    void* worker = ::dlopen(runtime.worker.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!worker)
        start.fail(fmt::format("cannot load importscope's worker {}: {}", runtime.worker, dl_failure()));
    auto entry = reinterpret_cast<embed::WorkerEntry>(::dlsym(worker, embed::k_worker_entry));
    if (!entry)
        start.fail(fmt::format("{} has no {}: {}", runtime.worker, embed::k_worker_entry, dl_failure()));
    entry(&plan, start_fd);
    ::_exit(EX_SOFTWARE); // the entry never returns
}

} // namespace importscope::supervisor
