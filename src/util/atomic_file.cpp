#include "importscope/util/atomic_file.hpp"

#include "importscope/util/clock.hpp"
#include "importscope/util/console.hpp"
#include "importscope/util/destination.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope {

namespace {

/// Puts the finished temporary file at `path`; 0 or an errno. A file already there is swapped out
/// (RENAME_EXCHANGE) and then removed, not renamed over: ext4 (auto_da_alloc) makes a rename over
/// an existing file allocate and start writing the new file's blocks first, which cost a run
/// 7-9 ms for an 8.6 MB report. Readers see the old file or the new one either way.
int put_in_place(const std::string& temp, const std::filesystem::path& path)
{
    struct stat st {};
    const bool swap = ::lstat(path.c_str(), &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
    if (swap && ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
        ::unlink(temp.c_str()); // the old file, under the temporary name now
        return 0;
    }
    // Nothing to swap with, or a file system without the exchange (EINVAL): a plain rename.
    return ::rename(temp.c_str(), path.c_str()) == 0 ? 0 : errno;
}

/// Puts the finished temporary file at `path` only if nothing is there; 0, EEXIST or an errno.
/// A file system without RENAME_NOREPLACE (EINVAL) gets a hard link, which fails the same way.
int put_where_nothing_is(const std::string& temp, const std::filesystem::path& path)
{
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return errno;
    if (::link(temp.c_str(), path.c_str()) != 0)
        return errno;
    ::unlink(temp.c_str());
    return 0;
}

FileSnapshot snapshot_of(const std::filesystem::path& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return {};
    return {true, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
            nanoseconds_of(st.st_mtim), static_cast<std::int64_t>(st.st_size)};
}

/// `path` still holds what `before` saw: the temporary file is swapped in, and swapped back out if
/// what it replaced turns out to be another writer's (put there between the look and the swap).
/// 0 when it is in place, EEXIST when `path` is another writer's, or an errno.
int put_in_place_of(const std::string& temp, const std::filesystem::path& path, const FileSnapshot& before)
{
    if (!before.exists)
        return put_where_nothing_is(temp, path);
    if (snapshot_of(path) != before)
        return EEXIST;
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0)
        return errno == EINVAL || errno == ENOSYS ? put_in_place(temp, path) : errno;
    if (snapshot_of(temp) == before) {
        ::unlink(temp.c_str()); // the old file, under the temporary name now
        return 0;
    }
    ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE); // theirs back
    return EEXIST;
}

/// `report.json` -> `report.PID.json`, then `report.PID-1.json`, ...
std::filesystem::path beside(const std::filesystem::path& path, int attempt)
{
    std::string name = path.stem().string() + "." + std::to_string(::getpid());
    if (attempt > 0)
        name += "-" + std::to_string(attempt);
    return path.parent_path() / (name + path.extension().string());
}

/// The temporary's path beside `path`: `.NAME.XXXXXX`, or `.importscope-XXXXXX` when that would
/// be longer than a file name can be (NAME_MAX), which a report's own name may still fit.
std::string temporary_beside(const std::filesystem::path& path)
{
    const std::string name = path.filename().string();
    const std::string derived = "." + name + ".XXXXXX";
    return (directory_of(path) / (derived.size() <= NAME_MAX ? derived : ".importscope-XXXXXX")).string();
}

} // namespace

namespace {

/// Writes the pieces into an open descriptor (a device, a pipe, a shell's redirection).
void write_through(int fd, const std::string& name, const std::function<void(const TextSink&)>& produce)
{
    int saved = 0;
    const TextSink sink = [&](std::string_view piece) {
        if (saved == 0 && !write_all(fd, piece))
            saved = errno;
    };
    produce(sink);
    if (saved != 0)
        throw system_error(fmt::format("cannot write {}", name), saved);
}

void write_replacing(const std::filesystem::path& path, const std::function<void(const TextSink&)>& produce);

/// Opens a device or FIFO for writing. A FIFO without a reader would block open(2) for ever: it is
/// opened without blocking (ENXIO while nobody reads) until a reader comes or `reader_wait_s` is over.
int open_written_through(const std::filesystem::path& path, double reader_wait_s)
{
    constexpr int k_flags = O_WRONLY | O_NOCTTY | O_CLOEXEC;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISFIFO(st.st_mode)) {
        const int fd = ::open(path.c_str(), k_flags);
        if (fd < 0)
            throw system_error(fmt::format("cannot write {}", path.string()), errno);
        return fd;
    }
    const std::int64_t until = monotonic_ns() + static_cast<std::int64_t>(reader_wait_s * 1e9);
    while (true) {
        const int fd = ::open(path.c_str(), k_flags | O_NONBLOCK);
        if (fd >= 0) {
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK); // a slow reader is waited for
            return fd;
        }
        if (errno != ENXIO && errno != EINTR)
            throw system_error(fmt::format("cannot write {}", path.string()), errno);
        if (monotonic_ns() >= until)
            throw Error(fmt::format("cannot write {}: it is a named pipe that no process opened for reading within "
                                    "{:g} s; start its reader before importscope, or give a file",
                                    path.string(), reader_wait_s));
        ::usleep(20'000);
    }
}

} // namespace

ReplacingFile::ReplacingFile(std::filesystem::path path)
    : m_path(std::move(path)), m_temp(temporary_beside(m_path))
{
    m_fd = ::mkstemp(m_temp.data());
    if (m_fd < 0)
        throw system_error(fmt::format("cannot create a temporary file beside {}", m_path.string()), errno);
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(m_fd, 0666 & ~mask) != 0)
        m_error = errno;
    m_sink = [this](std::string_view piece) {
        if (m_error == 0 && !write_all(m_fd, piece))
            m_error = errno != 0 ? errno : EIO; // a write that wrote nothing and set no errno
    };
}

ReplacingFile::~ReplacingFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_committed)
        ::unlink(m_temp.c_str());
}

int ReplacingFile::close_written()
{
    int saved = m_error;
    const int fd = std::exchange(m_fd, -1);
    if (::close(fd) != 0 && saved == 0) // no fsync: see atomic_file.hpp
        saved = errno;
    return saved;
}

void ReplacingFile::commit()
{
    int saved = close_written();
    if (saved == 0)
        saved = put_in_place(m_temp, m_path);
    if (saved != 0)
        throw system_error(fmt::format("cannot write {}", m_path.string()), saved);
    m_committed = true;
}

std::filesystem::path ReplacingFile::commit_unless_replaced(const FileSnapshot& before)
{
    int saved = close_written();
    std::filesystem::path written = m_path;
    if (saved == 0)
        saved = put_in_place_of(m_temp, m_path, before);
    for (int attempt = 0; saved == EEXIST && attempt < 100; ++attempt) {
        written = beside(m_path, attempt);
        saved = put_where_nothing_is(m_temp, written);
    }
    if (saved != 0)
        throw system_error(fmt::format("cannot write {}", written.string()), saved);
    m_committed = true;
    return written;
}

std::optional<FileSnapshot> snapshot_of_destination(const std::filesystem::path& path)
{
    const Destination destination = inspect_destination(path);
    if (destination.descriptor >= 0 || destination.write_through)
        return std::nullopt;
    return snapshot_of(destination.path);
}

std::filesystem::path write_file_beside_others(const std::filesystem::path& path,
                                               const std::function<void(const TextSink&)>& produce,
                                               double reader_wait_s, const std::optional<FileSnapshot>& before)
{
    const Destination destination = inspect_destination(path);
    if (!before || destination.descriptor >= 0 || destination.write_through) {
        write_file_atomically(path, produce, reader_wait_s);
        return path;
    }
    ReplacingFile file(destination.path);
    produce(file.sink());
    const std::filesystem::path written = file.commit_unless_replaced(*before);
    return written == destination.path ? path : written;
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(const TextSink&)>& produce,
                           double reader_wait_s)
{
    const Destination destination = inspect_destination(path);
    if (destination.descriptor >= 0) {
        write_through(destination.descriptor, path.string(), produce);
        return;
    }
    if (destination.write_through) {
        const int fd = open_written_through(path, reader_wait_s);
        try {
            write_through(fd, path.string(), produce);
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd);
        return;
    }
    write_replacing(destination.path, produce);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content)
{
    write_file_atomically(path, [&](const TextSink& sink) { sink(content); });
}

namespace {

void write_replacing(const std::filesystem::path& path, const std::function<void(const TextSink&)>& produce)
{
    ReplacingFile file(path);
    produce(file.sink());
    file.commit();
}

} // namespace

} // namespace importscope
