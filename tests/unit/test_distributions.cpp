#include "importscope/collect/distributions.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <thread>

using namespace importscope;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& file, const std::string& text)
{
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

/// A *.dist-info directory as pip writes it: METADATA, top_level.txt and a RECORD of `files`.
void dist_info(const fs::path& site, const std::string& name, const std::string& version, const std::string& top_level,
               const std::vector<std::string>& files)
{
    const fs::path metadata = site / (name + "-" + version + ".dist-info");
    write(metadata / "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n\nText\n");
    write(metadata / "top_level.txt", top_level + "\n");
    std::string record;
    for (const std::string& file : files)
        record += file + ",sha256=x,1\n";
    write(metadata / "RECORD", record + metadata.filename().string() + "/RECORD,,\n");
}

/// The owners of `origin`, looked up on a thread of their own, or none when the look-up takes more
/// than 20 s: a regression that waits (a FIFO) or reads without end fails its case instead of
/// hanging the suite.
std::optional<std::vector<analysis::Distribution>> owners_within_20_s(const std::string& origin)
{
    auto looked_up = std::make_shared<std::promise<std::vector<analysis::Distribution>>>();
    std::future<std::vector<analysis::Distribution>> owners = looked_up->get_future();
    std::thread([looked_up, origin] {
        collect::DistributionIndex index;
        looked_up->set_value(index.owners_of(origin));
    }).detach();
    if (owners.wait_for(std::chrono::seconds(20)) != std::future_status::ready)
        return std::nullopt;
    return owners.get();
}

} // namespace

TEST_CASE("a package two distributions' RECORDs list in one directory has both as owners", "[distributions]")
{
    testing::TempDir site;
    write(site.path / "twin/__init__.py", "");
    dist_info(site.path, "twin-b", "2.0", "twin", {"twin/__init__.py", "twin/extra.py"});
    dist_info(site.path, "twin-a", "1.0", "twin", {"twin/__init__.py"});
    collect::DistributionIndex index;
    const auto owners = index.owners_of((site.path / "twin/__init__.py").string());
    REQUIRE(owners.size() == 2);
    CHECK(owners[0].name == "twin-a"); // in the order of the metadata directories' names
    CHECK(owners[1].name == "twin-b");
    CHECK(owners[1].version == "2.0");
}

TEST_CASE("a distribution whose RECORD lists another file of the name does not own the package", "[distributions]")
{
    // Debian's dist-packages: pytest's top_level.txt names py for its py.py shim, beside the py package.
    testing::TempDir site;
    write(site.path / "py/__init__.py", "");
    write(site.path / "py.py", "");
    dist_info(site.path, "pytest", "7.2.1", "_pytest\npy\npytest", {"py.py", "pytest/__init__.py"});
    write(site.path / "py-1.11.0.egg-info/PKG-INFO", "Metadata-Version: 1.1\nName: py\nVersion: 1.11.0\n");
    write(site.path / "py-1.11.0.egg-info/top_level.txt", "py\n");
    collect::DistributionIndex index;
    const auto owners = index.owners_of((site.path / "py/__init__.py").string());
    REQUIRE(owners.size() == 1);
    CHECK(owners[0].name == "py");
}

TEST_CASE("a namespace package that distributions declare is owned by none of them", "[distributions]")
{
    testing::TempDir site;
    write(site.path / "lazr/__init__.py", "");
    for (const std::string name : {"lazr.uri", "lazr.restfulclient"}) {
        const fs::path metadata = site.path / (name + "-1.0.egg-info");
        write(metadata / "PKG-INFO", "Name: " + name + "\nVersion: 1.0\n");
        write(metadata / "top_level.txt", "lazr\n");
        write(metadata / "namespace_packages.txt", "lazr\n");
    }
    collect::DistributionIndex index;
    CHECK(index.owners_of((site.path / "lazr/__init__.py").string()).empty());
    CHECK(index.owners_of((site.path / "absent/__init__.py").string()).empty());
}

TEST_CASE("installed versions are the first found on the path, by the metadata directory's normalized name",
          "[distributions]")
{
    testing::TempDir first;
    testing::TempDir second;
    dist_info(first.path, "flashinfer_python", "0.5.1", "flashinfer", {"flashinfer/__init__.py"});
    dist_info(second.path, "flashinfer_python", "0.4.0", "flashinfer", {"flashinfer/__init__.py"});
    dist_info(second.path, "deep_gemm", "2.1", "deep_gemm", {"deep_gemm/__init__.py"});
    write(second.path / "torch-2.9.0.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.9.0\n\n");
    write(second.path / "not_asked-1.0.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 0.0\n\n");
    const auto versions = collect::installed_versions({"flashinfer-python", "deep_gemm", "deep-gemm", "torch", "vllm"},
                                                      {first.path.string(), second.path.string()});
    CHECK(versions.at("flashinfer-python") == "0.5.1"); // the first directory's, as importlib.metadata finds it
    CHECK(versions.at("deep_gemm") == "2.1");
    CHECK(versions.at("deep-gemm") == "2.1"); // one name, however it is spelt
    CHECK(versions.at("torch") == "2.9.0");   // METADATA alone suffices
    CHECK_FALSE(versions.at("vllm").has_value());
}

TEST_CASE("metadata is read as pip writes it, whatever its line ends and its length", "[distributions]")
{
    testing::TempDir site;
    // A header in CRLF lines, then a description longer than a read, which names another
    // distribution as a header would: only the header counts.
    const fs::path crlf = site.path / "crlf_dist-1.0.dist-info";
    write(crlf / "METADATA", "Metadata-Version: 2.1\r\nName: crlf-dist\r\nVersion: 1.0\r\n\r\n" + std::string(10000, 'x') +
                                 "\nName: not-this\nVersion: 9\n");
    write(crlf / "top_level.txt", "crlf_mod"); // no line end at the end
    write(site.path / "crlf_mod.py", "");
    // No top_level.txt: the RECORD names the top level, its last line without a line end.
    const fs::path recorded = site.path / "recorded-2.0.dist-info";
    write(recorded / "METADATA", "Metadata-Version: 2.1\nName: recorded\nVersion: 2.0\n");
    write(recorded / "RECORD", "recorded_pkg/__init__.py,sha256=x,1\nrecorded-2.0.dist-info/RECORD,,");
    write(site.path / "recorded_pkg/__init__.py", "");
    collect::DistributionIndex index;
    const auto crlf_owners = index.owners_of((site.path / "crlf_mod.py").string());
    REQUIRE(crlf_owners.size() == 1);
    CHECK(crlf_owners[0].name == "crlf-dist");
    CHECK(crlf_owners[0].version == "1.0");
    const auto recorded_owners = index.owners_of((site.path / "recorded_pkg/__init__.py").string());
    REQUIRE(recorded_owners.size() == 1);
    CHECK(recorded_owners[0].name == "recorded");
    CHECK(index.owners_of((site.path / "unowned.py").string()).empty());
}

TEST_CASE("a RECORD without top_level.txt gives every top-level name it installs, in any order", "[distributions]")
{
    testing::TempDir site;
    const fs::path metadata = site.path / "mixed-3.0.dist-info";
    write(metadata / "METADATA", "Metadata-Version: 2.1\nSummary: fields before the name\nVersion: 3.0\nName: mixed\n");
    write(metadata / "RECORD", "mixed-3.0.dist-info/METADATA,sha256=x,1\n"
                               "alpha/__init__.py,sha256=x,1\n"
                               "alpha/_vendor/dep-1.0.dist-info/RECORD,sha256=x,1\n"
                               "beta.py,sha256=x,1\n"
                               "__pycache__/beta.cpython-311.pyc,,\n"
                               "alpha/core.py,sha256=x,1\n"
                               "../../../bin/mixed-tool,sha256=x,1\n"
                               "gamma/__init__.py,sha256=x,1\n"
                               "_ext.cpython-311-x86_64-linux-gnu.so,sha256=x,1\n");
    collect::DistributionIndex index;
    for (const std::string file :
         {"alpha/__init__.py", "beta.py", "gamma/__init__.py", "_ext.cpython-311-x86_64-linux-gnu.so"}) {
        INFO(file);
        const auto owners = index.owners_of((site.path / file).string());
        REQUIRE(owners.size() == 1);
        CHECK(owners[0].name == "mixed");
        CHECK(owners[0].version == "3.0");
    }
    // Paths outside the directory, bytecode caches and the metadata's own files name nothing.
    for (const std::string file : {"bin/__init__.py", "__pycache__/__init__.py", "mixed-3.0.dist-info/__init__.py"})
        CHECK(index.owners_of((site.path / file).string()).empty());
}

TEST_CASE("metadata that is a FIFO is passed over, not waited on", "[distributions]")
{
    testing::TempDir site;
    dist_info(site.path, "plain", "1.0", "plain", {"plain.py"});
    write(site.path / "plain.py", "");
    // A METADATA that is a FIFO, and a RECORD that is one where no top_level.txt names the module:
    // opening either for reading would wait for a writer that never comes.
    fs::create_directories(site.path / "fifo_meta-1.0.dist-info");
    REQUIRE(::mkfifo((site.path / "fifo_meta-1.0.dist-info" / "METADATA").c_str(), 0600) == 0);
    const fs::path fifo_record = site.path / "fifo_record-1.0.dist-info";
    write(fifo_record / "METADATA", "Metadata-Version: 2.1\nName: fifo-record\nVersion: 1.0\n");
    REQUIRE(::mkfifo((fifo_record / "RECORD").c_str(), 0600) == 0);

    const auto found = owners_within_20_s((site.path / "plain.py").string());
    REQUIRE(found);
    REQUIRE(found->size() == 1);
    CHECK((*found)[0].name == "plain");
}

TEST_CASE("a metadata file larger than 64 MiB is not read", "[distributions]")
{
    // A RECORD that names the module on its first line, then zeros to past the bound: sparse, it
    // costs its maker nothing, and one of a terabyte must not be read to its end.
    testing::TempDir site;
    const fs::path metadata = site.path / "huge-1.0.dist-info";
    write(metadata / "METADATA", "Metadata-Version: 2.1\nName: huge\nVersion: 1.0\n");
    write(metadata / "RECORD", "huge_mod.py,sha256=x,1\n");
    fs::resize_file(metadata / "RECORD", (std::uintmax_t{64} << 20) + 1);
    write(site.path / "huge_mod.py", "");
    dist_info(site.path, "small", "2.0", "small_mod", {"small_mod.py"});
    write(site.path / "small_mod.py", "");
    // A METADATA of zeros past the bound, with no blank line to end its header: read to the bound
    // once, not looked through again after every read.
    const fs::path zeros = site.path / "zeros-1.0.dist-info";
    write(zeros / "METADATA", "Metadata-Version: 2.1\nName: zeros\n");
    fs::resize_file(zeros / "METADATA", (std::uintmax_t{64} << 20) + 1);
    write(zeros / "top_level.txt", "zeros_mod\n");
    write(site.path / "zeros_mod.py", "");
    const auto named = owners_within_20_s((site.path / "zeros_mod.py").string());
    REQUIRE(named);
    REQUIRE(named->size() == 1); // its Name was read; no Version came before the zeros
    CHECK((*named)[0].name == "zeros");
    CHECK((*named)[0].version.empty());

    collect::DistributionIndex index;
    CHECK(index.owners_of((site.path / "huge_mod.py").string()).empty());
    const auto small = index.owners_of((site.path / "small_mod.py").string());
    REQUIRE(small.size() == 1);
    CHECK(small[0].name == "small");
}

namespace {

/// Sets the modification time of `directory` to `seconds_ago` seconds before now.
void age(const fs::path& directory, int seconds_ago)
{
    timespec times[2]{};
    ::clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec -= seconds_ago;
    times[1] = times[0];
    REQUIRE(::utimensat(AT_FDCWD, directory.c_str(), times, 0) == 0);
}

std::vector<std::string> cache_files(const fs::path& cache)
{
    std::vector<std::string> names;
    if (fs::exists(cache))
        for (const auto& entry : fs::directory_iterator(cache))
            names.push_back(entry.path().filename().string());
    return names;
}

} // namespace

TEST_CASE("a directory's distributions are kept in the cache while it keeps its modification time", "[distributions]")
{
    testing::TempDir site;
    testing::TempDir cache;
    write(site.path / "alpha/__init__.py", "");
    write(site.path / "beta/__init__.py", "");
    dist_info(site.path, "alpha", "1.0", "alpha", {"alpha/__init__.py"});
    age(site.path, 60);
    const std::string alpha = (site.path / "alpha/__init__.py").string();
    const std::string beta = (site.path / "beta/__init__.py").string();
    {
        collect::DistributionIndex index(cache.path);
        const auto owners = index.owners_of(alpha);
        REQUIRE(owners.size() == 1);
        CHECK(owners[0].version == "1.0");
    }
    REQUIRE(cache_files(cache.path).size() == 1);

    // Changed in place, inside its metadata directory: the directory's time stays, and the cache
    // answers (which shows that it is read).
    write(site.path / "alpha-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: alpha\nVersion: 1.0.post1\n\n");
    {
        collect::DistributionIndex index(cache.path);
        CHECK(index.owners_of(alpha).at(0).version == "1.0");
        collect::DistributionIndex uncached(std::nullopt);
        CHECK(uncached.owners_of(alpha).at(0).version == "1.0.post1");
    }

    // A distribution installed: a metadata directory more, a new modification time, read again.
    dist_info(site.path, "beta", "2.0", "beta", {"beta/__init__.py"});
    age(site.path, 30);
    {
        collect::DistributionIndex index(cache.path);
        CHECK(index.owners_of(alpha).at(0).version == "1.0.post1");
        const auto owners = index.owners_of(beta);
        REQUIRE(owners.size() == 1);
        CHECK(owners[0].name == "beta");
    }
    CHECK(cache_files(cache.path).size() == 1); // the directory's file, replaced
}

TEST_CASE("a directory modified in the last seconds is not cached, and a damaged cache file is read past",
          "[distributions]")
{
    testing::TempDir site;
    testing::TempDir cache;
    write(site.path / "alpha/__init__.py", "");
    dist_info(site.path, "alpha", "1.0", "alpha", {"alpha/__init__.py"});
    const std::string alpha = (site.path / "alpha/__init__.py").string();
    {
        // Just written: a change in the same tick of the file system's clock would go unseen.
        collect::DistributionIndex index(cache.path);
        CHECK(index.owners_of(alpha).at(0).name == "alpha");
    }
    CHECK(cache_files(cache.path).empty());

    age(site.path, 60);
    collect::DistributionIndex(cache.path).owners_of(alpha);
    const std::vector<std::string> files = cache_files(cache.path);
    REQUIRE(files.size() == 1);
    for (const std::string& damaged :
         {std::string("{\"format\": 1, \"directory\": "), std::string("[]"), std::string("{\"format\": 99}")}) {
        write(cache.path / files[0], damaged);
        collect::DistributionIndex index(cache.path);
        const auto owners = index.owners_of(alpha);
        REQUIRE(owners.size() == 1);
        CHECK(owners[0].version == "1.0");
    }
}

TEST_CASE("a directory whose metadata names hold a tab is read every time, never cached", "[distributions]")
{
    testing::TempDir site;
    testing::TempDir cache;
    write(site.path / "odd/__init__.py", "");
    dist_info(site.path, "odd", "1.0", "odd\nod\td", {"odd/__init__.py"}); // a tab would cut a cached line
    age(site.path, 60);
    collect::DistributionIndex index(cache.path);
    CHECK(index.owners_of((site.path / "odd/__init__.py").string()).at(0).name == "odd");
    CHECK(cache_files(cache.path).empty());
}

TEST_CASE("a cache that cannot be written costs the reading, never the answer", "[distributions]")
{
    testing::TempDir site;
    testing::TempDir scratch;
    write(site.path / "alpha/__init__.py", "");
    dist_info(site.path, "alpha", "1.0", "alpha", {"alpha/__init__.py"});
    age(site.path, 60);
    const fs::path not_a_directory = scratch.path / "cache";
    write(not_a_directory, "a file where the cache directory would be\n");
    for (int run = 0; run < 2; ++run) {
        collect::DistributionIndex index(not_a_directory);
        const auto owners = index.owners_of((site.path / "alpha/__init__.py").string());
        REQUIRE(owners.size() == 1);
        CHECK(owners[0].name == "alpha");
    }
    CHECK(fs::is_regular_file(not_a_directory));
}
