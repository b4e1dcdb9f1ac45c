#include "importscope/util/run_program.hpp"

#include "importscope/util/clock.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace importscope {

CapturedRun capture_program(const std::vector<std::string>& argv, double timeout_s, bool keep_stderr)
{
    CapturedRun run;
    if (argv.empty())
        return run;
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
        return run;
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        return run;
    }
    if (pid == 0) {
        ::dup2(pipe_fds[1], STDOUT_FILENO);
        const int devnull = ::open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            ::dup2(devnull, STDIN_FILENO);
            if (!keep_stderr)
                ::dup2(devnull, STDERR_FILENO);
        }
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    std::string& output = run.output;
    const std::int64_t deadline = monotonic_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
    bool timed_out = false;
    while (true) {
        const std::int64_t left_ms = (deadline - monotonic_ns()) / 1'000'000;
        if (left_ms <= 0) {
            timed_out = true;
            break;
        }
        pollfd fd{pipe_fds[0], POLLIN, 0};
        const int ready = ::poll(&fd, 1, static_cast<int>(left_ms));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            timed_out = ready == 0;
            break;
        }
        char buffer[4096];
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        output.append(buffer, static_cast<std::size_t>(n));
        if (output.size() > (16u << 20))
            break;
    }
    ::close(pipe_fds[0]);
    if (timed_out)
        ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out)
        run.end = CapturedRun::End::timed_out;
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        run.end = CapturedRun::End::succeeded;
    else {
        run.end = CapturedRun::End::failed;
        run.how = WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                    : fmt::format("signal {}", WTERMSIG(status));
    }
    return run;
}

std::optional<std::string> run_and_capture(const std::vector<std::string>& argv, double timeout_s, bool keep_stderr)
{
    CapturedRun run = capture_program(argv, timeout_s, keep_stderr);
    if (run.end != CapturedRun::End::succeeded)
        return std::nullopt;
    return std::move(run.output);
}

} // namespace importscope
