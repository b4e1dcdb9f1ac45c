#include "importscope/util/atomic_file.hpp"
#include "importscope/util/error.hpp"

#include "temp_dir.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <csignal>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace importscope;

namespace {

std::string read(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST_CASE("an existing file is replaced whole, with no temporary left behind", "[atomic]")
{
    const testing::TempDir scratch;
    const std::filesystem::path& dir = scratch.path;
    const auto file = dir / "report.json";
    std::ofstream(file) << "old";
    write_file_atomically(file, "new content");
    CHECK(read(file) == "new content");
    CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("a file made piece by piece is complete, or not there at all", "[atomic]")
{
    const testing::TempDir scratch;
    const std::filesystem::path& dir = scratch.path;
    const auto file = dir / "report.json";
    std::ofstream(file) << "old";
    auto entries = [&] {
        return std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator());
    };

    // A producer that fails half-way leaves the old file as it was and no temporary.
    CHECK_THROWS_AS(write_file_atomically(file,
                                          [](const TextSink& sink) {
                                              sink("half of");
                                              throw std::runtime_error("the producer failed");
                                          }),
                    std::runtime_error);
    CHECK(read(file) == "old");
    CHECK(entries() == 1);

    write_file_atomically(file, [](const TextSink& sink) {
        for (int i = 0; i < 3; ++i)
            sink(std::string(100'000, static_cast<char>('a' + i)));
    });
    const std::string text = read(file);
    REQUIRE(text.size() == 300'000);
    CHECK((text[0] == 'a' && text[100'000] == 'b' && text.back() == 'c'));
    CHECK(entries() == 1);
}

TEST_CASE("a destination in a missing directory is refused up front", "[atomic]")
{
    CHECK_THROWS_WITH(check_writable_destination("/nonexistent-dir/r.json"), Catch::Contains("does not exist"));
    CHECK_THROWS_AS(write_file_atomically("/nonexistent-dir/r.json", "x"), Error);
    CHECK_NOTHROW(check_writable_destination("relative-name.json"));
}

TEST_CASE("replacing a file leaves its other names and a symlink's target alone", "[atomic]")
{
    const testing::TempDir scratch;
    const std::filesystem::path& dir = scratch.path;

    // The old file keeps the content it had under another hard link: it is replaced, not rewritten.
    const auto file = dir / "report.json";
    std::ofstream(file) << "old";
    std::filesystem::create_hard_link(file, dir / "kept.json");
    write_file_atomically(file, "new");
    CHECK(read(file) == "new");
    CHECK(read(dir / "kept.json") == "old");
    CHECK(std::filesystem::hard_link_count(file) == 1);

    // A symlink at the destination is followed: its target is replaced, in its own directory.
    const auto link = dir / "latest.json";
    std::filesystem::create_symlink(dir / "kept.json", link);
    write_file_atomically(link, "newest");
    CHECK(std::filesystem::is_symlink(link));
    CHECK(read(link) == "newest");
    CHECK(read(dir / "kept.json") == "newest");
    CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 3);
}

TEST_CASE("a device or a pipe is written into, never replaced; a directory, block device or socket is refused",
          "[atomic]")
{
    importscope::testing::TempDir scratch;
    write_file_atomically("/dev/null", "discarded");
    CHECK(std::filesystem::is_character_file("/dev/null"));
    const auto fifo = scratch.path / "pipe";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    REQUIRE(reader >= 0);
    write_file_atomically(fifo, "through the pipe");
    char buffer[64] = {};
    CHECK(std::string(buffer, static_cast<std::size_t>(::read(reader, buffer, sizeof buffer))) == "through the pipe");
    ::close(reader);
    CHECK(std::filesystem::is_fifo(fifo));
    CHECK_THROWS_WITH(check_writable_destination(scratch.path), Catch::Contains("is a directory"));
    CHECK_THROWS_WITH(check_writable_destination(""), Catch::Contains("empty"));
    if (std::filesystem::exists("/dev/loop0"))
        CHECK_THROWS_WITH(check_writable_destination("/dev/loop0"), Catch::Contains("block device"));
    CHECK_THROWS_WITH(check_writable_destination("/proc/version"), Catch::Contains("does not take new files"));
}

TEST_CASE("an output that is one of the command's inputs is refused", "[atomic]")
{
    importscope::testing::TempDir scratch;
    const auto script = scratch.path / "target.py";
    std::ofstream(script) << "print()";
    std::filesystem::create_symlink(script, scratch.path / "alias.py");
    CHECK_THROWS_WITH(check_writable_destination(scratch.path / "alias.py", {script}),
                      Catch::Contains("which this command reads"));
    CHECK_NOTHROW(check_writable_destination(scratch.path / "report.json", {script}));
}

TEST_CASE("a file being replaced that is dropped leaves the old one; a failed write is kept for commit",
          "[atomic]")
{
    const testing::TempDir dir;
    const auto target = dir.path / "report.json";
    std::ofstream(target) << "old";
    {
        ReplacingFile file(target);
        file.sink()("new, never put in place");
        CHECK(file.written());
    }
    CHECK(read(target) == "old");
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()) == 1);

    // A file size limit makes a write fail (EFBIG) as a full disk would.
    struct sigaction ignore {};
    struct sigaction before {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGXFSZ, &ignore, &before);
    rlimit limit{};
    ::getrlimit(RLIMIT_FSIZE, &limit);
    const rlimit small{16, limit.rlim_max};
    ReplacingFile file(target);
    ::setrlimit(RLIMIT_FSIZE, &small);
    file.sink()(std::string(100, 'x'));
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::sigaction(SIGXFSZ, &before, nullptr);
    CHECK_FALSE(file.written());
    CHECK_THROWS_AS(file.commit(), Error);
    CHECK(read(target) == "old");
}

TEST_CASE("a report another writer put at the path since the run began is kept, and ours goes beside it",
          "[atomic]")
{
    const testing::TempDir scratch;
    const auto file = scratch.path / "report.json";
    const auto text = [](std::string_view content) {
        return [content](const TextSink& sink) { sink(content); };
    };

    SECTION("nothing was there, and nothing is: ours is put there")
    {
        const auto before = snapshot_of_destination(file);
        REQUIRE(before);
        CHECK(write_file_beside_others(file, text("ours"), 1.0, before) == file);
        CHECK(read(file) == "ours");
    }
    SECTION("nothing was there, and another run wrote it since")
    {
        const auto before = snapshot_of_destination(file);
        std::ofstream(file) << "theirs";
        const auto written = write_file_beside_others(file, text("ours"), 1.0, before);
        CHECK(written == scratch.path / fmt::format("report.{}.json", ::getpid()));
        CHECK(read(file) == "theirs");
        CHECK(read(written) == "ours");
        // A third run of the same process id's name: a number after it, nothing replaced.
        CHECK(write_file_beside_others(file, text("third"), 1.0, before) ==
              scratch.path / fmt::format("report.{}-1.json", ::getpid()));
        CHECK(read(written) == "ours");
    }
    SECTION("an old report was there and still is: it is replaced")
    {
        std::ofstream(file) << "old";
        const auto before = snapshot_of_destination(file);
        CHECK(write_file_beside_others(file, text("ours"), 1.0, before) == file);
        CHECK(read(file) == "ours");
    }
    SECTION("an old report was there and another run replaced it since")
    {
        std::ofstream(file) << "old";
        const auto before = snapshot_of_destination(file);
        write_file_atomically(file, "theirs"); // a new file, as another importscope puts it
        const auto written = write_file_beside_others(file, text("ours"), 1.0, before);
        CHECK(written != file);
        CHECK(read(file) == "theirs");
        CHECK(read(written) == "ours");
    }
}
