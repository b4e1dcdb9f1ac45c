// main() of the Python-backed tests: owns the journal and the one embedded interpreter, with the
// hooks installed exactly as the worker installs them.

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "python_fixture.hpp"

#include "embed/interpreter.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"
#include "importscope/journal/run_layout.hpp"

#include <Python.h>

#include <cstdlib>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope::testing {

namespace {
std::filesystem::path g_journal;
std::filesystem::path g_scratch;
} // namespace

const std::filesystem::path& journal_path()
{
    return g_journal;
}

journal::JournalContents recorded()
{
    journal::JournalContents contents;
    journal::read_journal(g_journal, contents);
    return contents;
}

bool run_python(const std::string& code)
{
    return PyRun_SimpleString(code.c_str()) == 0;
}

std::filesystem::path make_package_dir()
{
    run_python("import sys; sys.path.insert(0, " + ("'" + g_scratch.string() + "'") + ")");
    return g_scratch;
}

journal::FileIdentity identity_of(const std::filesystem::path& path)
{
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

} // namespace importscope::testing

int main(int argc, char** argv)
{
    using namespace importscope;
    char scratch[] = "/tmp/importscope-python-tests-XXXXXX";
    if (!::mkdtemp(scratch))
        return 2;
    testing::g_scratch = scratch;
    if (!hook::JournalWriter::instance().start(testing::g_scratch))
        return 2;
    testing::g_journal = journal::list_journals(testing::g_scratch).at(0);
    hook::configure({{"deep_gemm"}, false, "", "", false});
    hook::register_audit_hook();
    PyImport_AppendInittab(hook::k_module_name, hook::init_module);

    int result = 0;
    {
        embed::WorkerPlan plan;
        plan.python_executable = IMPORTSCOPE_TEST_PYTHON;
        plan.target.kind = embed::TargetKind::command;
        plan.target.value = "pass";
        embed::Interpreter interpreter(
            plan, [] { hook::install_finder(); }, [] { hook::ensure_finder_first(); });
        result = Catch::Session().run(argc, argv);
    }
    std::filesystem::remove_all(testing::g_scratch);
    return result;
}
