#include "importscope/supervisor/process_tree.hpp"

#include "importscope/util/clock.hpp"
#include "importscope/util/python_name.hpp"
#include "importscope/util/task_launcher.hpp"
#include "importscope/util/unique_fd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <linux/kcmp.h>
#include <map>
#include <optional>
#include <string>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace importscope::supervisor {

namespace {

/// The whole of a small /proc file in `text` (read(2) itself: the watch reads a few of them for
/// every process of the tree four times a second, where a stream cost ten times as much); false
/// when it cannot be opened.
bool read_proc_file(const char* path, std::string& text)
{
    text.clear();
    const UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
    if (!fd)
        return false;
    std::array<char, 4096> piece; // NOLINT(cppcoreguidelines-pro-type-member-init): read into
    for (ssize_t n = 0; (n = ::read(fd.get(), piece.data(), piece.size())) > 0;)
        text.append(piece.data(), static_cast<std::size_t>(n));
    return true;
}

/// The parent of `pid` from /proc/PID/stat, or -1 when it is gone.
int parent_of(int pid)
{
    char path[64];
    (void)std::snprintf(path, sizeof path, "/proc/%d/stat", pid); // NOLINT(cppcoreguidelines-pro-type-vararg)
    const UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
    if (!fd)
        return -1;
    std::array<char, 512> text; // NOLINT(cppcoreguidelines-pro-type-member-init): read into
    const ssize_t n = ::read(fd.get(), text.data(), text.size() - 1);
    if (n <= 0)
        return -1;
    text[static_cast<std::size_t>(n)] = '\0';
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read from the last ')'.
    const char* close = std::strrchr(text.data(), ')');
    int parent = -1;
    char state = 0;
    if (!close || std::sscanf(close + 1, " %c %d", &state, &parent) != 2) // NOLINT(cert-err34-c)
        return -1;
    return state == 'Z' ? -1 : parent; // a zombie is ended already
}

std::multimap<int, int> children_by_parent()
{
    std::multimap<int, int> children;
    DIR* proc = ::opendir("/proc");
    if (!proc)
        return children;
    while (const dirent* entry = ::readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 0)
            continue;
        if (const int parent = parent_of(static_cast<int>(pid)); parent > 0)
            children.emplace(parent, static_cast<int>(pid));
    }
    ::closedir(proc);
    return children;
}

/// The living children of `pid`, from each of its threads' /proc/PID/task/TID/children: one file
/// per thread of the tree, where a walk of /proc reads every process of the machine. Nullopt when
/// the kernel has no such files (built without CONFIG_PROC_CHILDREN) or `pid` is gone.
std::optional<std::vector<int>> children_of(int pid)
{
    DIR* tasks = ::opendir(fmt::format("/proc/{}/task", pid).c_str());
    if (!tasks)
        return std::nullopt;
    std::vector<int> children;
    bool readable = false;
    std::string text;
    while (const dirent* entry = ::readdir(tasks)) {
        if (entry->d_name[0] == '.')
            continue;
        if (!read_proc_file(fmt::format("/proc/{}/task/{}/children", pid, entry->d_name).c_str(), text))
            continue;
        readable = true;
        const char* at = text.data();
        const char* const end = at + text.size();
        for (int child = 0; at < end; ++at) {
            const auto [next, error] = std::from_chars(at, end, child);
            if (error != std::errc{})
                break;
            at = next;
            if (parent_of(child) == pid) // a zombie is ended already; a pid reused meanwhile is another's
                children.push_back(child);
        }
    }
    ::closedir(tasks);
    if (!readable)
        return std::nullopt;
    return children;
}

/// Depth first from `root`, parents before their children, by children_of(); false when that
/// cannot be read for `root`.
bool collect_by_children_files(int root, const std::set<int>& excluded, std::vector<int>& into)
{
    const std::optional<std::vector<int>> children = children_of(root);
    if (!children)
        return false;
    for (int child : *children)
        if (!excluded.count(child) && std::find(into.begin(), into.end(), child) == into.end()) {
            into.push_back(child);
            collect_by_children_files(child, excluded, into); // one that ended meanwhile has none
        }
    return true;
}

void collect(const std::multimap<int, int>& children, int root, const std::set<int>& excluded, std::vector<int>& into)
{
    const auto [first, last] = children.equal_range(root);
    for (auto it = first; it != last; ++it)
        if (!excluded.count(it->second)) {
            into.push_back(it->second);
            collect(children, it->second, excluded, into);
        }
}

/// The guardian's life: read what the supervisor tells, and end the tree if it dies first.
[[noreturn]] void guard(int fd)
{
    std::set<int> pids;
    std::set<int> groups;
    std::string pending;
    char buffer[4096];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; // the supervisor is gone
        pending.append(buffer, static_cast<std::size_t>(n));
        for (std::size_t newline; (newline = pending.find('\n')) != std::string::npos; pending.erase(0, newline + 1)) {
            const std::string line = pending.substr(0, newline);
            if (line == "done")
                ::_exit(0);
            if (line.size() > 1 && (line[0] == 'p' || line[0] == 'g'))
                (line[0] == 'p' ? pids : groups).insert(std::atoi(line.c_str() + 1));
        }
    }
    // importscope died without ending the tree: end it, descendants of the known processes first
    // found (while their parents still link them), then the groups and the processes themselves.
    for (int round = 0; round < 3; ++round) {
        const auto children = children_by_parent();
        std::vector<int> victims;
        for (int pid : pids)
            if (pid > 1) {
                victims.push_back(pid);
                collect(children, pid, {}, victims);
            }
        for (int group : groups)
            ::kill(-group, SIGKILL);
        for (int pid : victims)
            ::kill(pid, SIGKILL);
        ::usleep(50'000);
    }
    ::_exit(0);
}

/// Closes every descriptor from `first` on, in a child between fork and exec or exit (nothing
/// here allocates): close_range(2) by its number, since glibc declares it from 2.34 on and the
/// wheel is built for 2.28, and one close(2) at a time where the kernel predates it (5.9).
void close_from(int first)
{
#ifndef SYS_close_range
    constexpr long SYS_close_range = 436; // the same on every architecture
#endif
    if (::syscall(SYS_close_range, first, ~0U, 0) == 0)
        return;
    const long limit = std::min(::sysconf(_SC_OPEN_MAX), 1L << 16);
    for (int fd = first; fd < limit; ++fd)
        ::close(fd);
}

} // namespace

/// The NUL-separated strings of a /proc file (cmdline, environ).
std::vector<std::string> proc_strings(int pid, const char* file)
{
    std::ifstream in(fmt::format("/proc/{}/{}", pid, file), std::ios::binary);
    std::vector<std::string> words;
    for (std::string word; std::getline(in, word, '\0');)
        words.push_back(std::move(word));
    return words;
}

std::string executable_of(int pid)
{
    std::error_code ec;
    return std::filesystem::read_symlink(fmt::format("/proc/{}/exe", pid), ec).string();
}

/// What tells one program that `pid` runs from the next it exec's, even of the same executable
/// (a traced Python that exec's `bash -c "exec python ..."`, as Ray's worker set-up does): the
/// executable, and the addresses of the stack, arguments and environment that exec(2) chose
/// (/proc/PID/stat fields 28 and 48 to 51), which a program retitling itself (setproctitle) keeps.
std::string image_of(int pid)
{
    // The executable is read on both sides of the fields: an exec between two reads of /proc
    // would otherwise join one program's executable to the next one's fields.
    std::string image = executable_of(pid);
    std::string stat;
    for (int attempt = 0; attempt < 3; ++attempt) {
        (void)read_proc_file(fmt::format("/proc/{}/stat", pid).c_str(), stat); // gone: no fields
        std::string after = executable_of(pid);
        if (after == image)
            break;
        image = std::move(after);
    }
    // "pid (comm) state ...": comm, field 2, may hold spaces and parentheses; fields from its ')' on.
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos)
        return image;
    const auto wanted = [](int field) { return field == 28 || (field >= 48 && field <= 51); };
    int field = 2;
    std::size_t start = std::string::npos; // of the field being read
    for (std::size_t at = close + 1; at <= stat.size(); ++at) {
        const bool blank = at == stat.size() || stat[at] == ' ' || stat[at] == '\n';
        if (!blank && start == std::string::npos) {
            start = at;
            ++field;
        } else if (blank && start != std::string::npos) {
            if (wanted(field)) {
                image += ' ';
                image.append(stat, start, at - start);
            }
            start = std::string::npos;
        }
    }
    return image;
}

bool shares_parent_memory(int pid)
{
    const int parent = parent_of(pid);
    return parent > 0 && ::syscall(SYS_kcmp, pid, parent, KCMP_VM, 0, 0) == 0;
}

std::optional<ObservedPython> describe_if_python(int pid)
{
    std::string executable = executable_of(pid);
    if (!std::filesystem::path(executable).filename().string().starts_with("python") || shares_parent_memory(pid))
        return std::nullopt;
    ObservedPython seen;
    seen.pid = pid;
    seen.ppid = parent_of(pid);
    seen.executable = std::move(executable);
    seen.argv = proc_strings(pid, "cmdline");
    // A retitled process (setproctitle: Ray's "ray::IDLE") pads its title with NULs.
    while (seen.argv.size() > 1 && seen.argv.back().empty())
        seen.argv.pop_back();
    std::string run_dir, bootstrap, python_path;
    for (const std::string& entry : proc_strings(pid, "environ")) {
        if (entry.starts_with("IMPORTSCOPE_RUN_DIR="))
            run_dir = entry.substr(20);
        else if (entry.starts_with("IMPORTSCOPE_BOOTSTRAP="))
            bootstrap = entry.substr(22);
        else if (entry.starts_with("PYTHONPATH="))
            python_path = entry.substr(11);
    }
    const bool on_path = !bootstrap.empty() && python_path.find(bootstrap) != std::string::npos;
    seen.environment = run_dir.empty() ? "dropped" : on_path ? "kept" : "no-bootstrap-path";
    return seen;
}

std::optional<ObservedLauncher> describe_if_launcher(int pid)
{
    std::string executable = executable_of(pid);
    if (!task_launcher_named(file_name_of(executable)))
        return std::nullopt;
    return ObservedLauncher{pid, parent_of(pid), "seen running", std::move(executable), proc_strings(pid, "cmdline")};
}

void ProgramWatch::look(const std::vector<int>& descendants)
{
    for (int pid : descendants) {
        std::string image = image_of(pid);
        auto [it, inserted] = m_images.try_emplace(pid, image);
        if (!inserted && it->second == image)
            continue;
        it->second = std::move(image);
        if (auto seen = describe_if_python(pid)) {
            // One process seen once while it runs one program: a change of its image that
            // leaves everything importscope tells of it as it was adds no second entry.
            const auto same_pid = [&](const ObservedPython& other) { return other.pid == pid; };
            const auto last = std::find_if(m_pythons.rbegin(), m_pythons.rend(), same_pid);
            if (last == m_pythons.rend() || !(*last == *seen))
                m_pythons.push_back(std::move(*seen));
        } else if (auto launcher = describe_if_launcher(pid))
            m_launchers[pid] = std::move(*launcher);
    }
}

std::vector<ObservedPython> ProgramWatch::pythons() const
{
    return m_pythons;
}

std::vector<ObservedLauncher> ProgramWatch::launchers() const
{
    std::vector<ObservedLauncher> all;
    for (const auto& [pid, seen] : m_launchers)
        all.push_back(seen);
    return all;
}

std::vector<int> descendants_of(int root, const std::set<int>& excluded)
{
    std::vector<int> found;
    if (collect_by_children_files(root, excluded, found))
        return found;
    found.clear();
    collect(children_by_parent(), root, excluded, found);
    return found;
}

std::vector<int> kill_descendants(const std::set<int>& excluded)
{
    std::vector<int> killed;
    std::set<int> signalled;
    const std::int64_t until = monotonic_ns() + 1'000'000'000;
    while (monotonic_ns() < until) {
        bool any = false;
        for (int pid : descendants_of(static_cast<int>(::getpid()), excluded)) {
            any = true;
            if (::kill(pid, SIGKILL) == 0 && signalled.insert(pid).second)
                killed.push_back(pid);
        }
        // Reaping is the caller's: a killed child stays a zombie (and out of the walk) until then.
        if (!any)
            break;
        ::usleep(10'000);
    }
    return killed;
}

namespace {

/// The guardian's line for an entry of Guardian::m_told: "p123" for a process, "g123" for the
/// process group of 123 (told as -123).
std::string told_line(int told)
{
    return fmt::format("{}{}\n", told < 0 ? 'g' : 'p', told < 0 ? -told : told);
}

} // namespace

Guardian::Guardian()
{
    start();
}

void Guardian::start()
{
    int lifeline[2];
    if (::pipe2(lifeline, O_CLOEXEC) != 0)
        return; // no guardian: a SIGKILL of importscope may then leave processes behind
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(lifeline[1]);
        ::setpgid(0, 0); // out of the way of the terminal's signals and of the tree's group
        const int devnull = ::open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3; ++fd)
            ::dup2(devnull, fd); // holds no pipe of the user's open (a `| tee` sees its end)
        // Nothing else of the supervisor's stays open here: the lifeline becomes descriptor 3.
        if (lifeline[0] != 3) {
            ::dup2(lifeline[0], 3);
            lifeline[0] = 3;
        }
        close_from(4);
        sigset_t none;
        sigemptyset(&none);
        ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM})
            std::signal(s, SIG_IGN); // NOLINT(cert-err33-c): it ends with the supervisor, not before
        guard(lifeline[0]);
    }
    ::close(lifeline[0]);
    if (pid < 0) {
        ::close(lifeline[1]);
        return;
    }
    m_pid = pid;
    m_fd = lifeline[1];
}

Guardian::~Guardian()
{
    release();
}

void Guardian::watch(int pid, bool group)
{
    if (m_fd < 0 || !m_told.insert(group ? -pid : pid).second)
        return;
    const std::string line = told_line(group ? -pid : pid);
    (void)!::write(m_fd, line.data(), line.size()); // a guardian that is gone guards nothing
}

int Guardian::replace()
{
    if (m_released)
        return -1;
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_pid = -1;
    start();
    if (m_fd < 0)
        return -1;
    std::string lines;
    for (int told : m_told)
        lines += told_line(told);
    (void)!::write(m_fd, lines.data(), lines.size()); // the new guardian reads as it is written
    return m_pid;
}

void Guardian::release()
{
    m_released = true;
    if (m_fd < 0)
        return;
    (void)!::write(m_fd, "done\n", 5);
    ::close(m_fd);
    m_fd = -1;
    // Not waited for: it exits at once, and whoever reaps importscope's children reaps it.
}

} // namespace importscope::supervisor
