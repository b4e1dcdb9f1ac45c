#include "python_fixture.hpp"

#include "importscope/analysis/finding.hpp"
#include "importscope/journal/event.hpp"
#include "hook/alias_lines.hpp"
#include "hook/process_tracking.hpp"
#include "hook/sys_path_origins.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sys/stat.h>
#include <unistd.h>
#include <optional>

using namespace importscope;

namespace {

void write_file(const std::filesystem::path& path, const std::string& text)
{
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

template <typename Event>
std::vector<Event> events_of(const journal::JournalContents& contents)
{
    std::vector<Event> out;
    for (const auto& e : contents.events)
        if (const auto* typed = std::get_if<Event>(&e))
            out.push_back(*typed);
    return out;
}

// A temporary vector would leave the returned pointer dangling.
const journal::ImportBegin* find_begin(const std::vector<journal::ImportBegin>&& begins, const std::string& name) = delete;
const journal::ImportBegin* find_begin(const std::vector<journal::ImportBegin>& begins, const std::string& name)
{
    for (const auto& b : begins)
        if (b.name == name)
            return &b;
    return nullptr;
}

/// The installation event of the top-level `name` in what the hooks recorded (the last one).
std::optional<journal::Installation> recorded_installation(const std::string& name)
{
    std::optional<journal::Installation> found;
    for (auto& e : events_of<journal::Installation>(testing::recorded()))
        if (e.name == name)
            found = std::move(e);
    return found;
}

} // namespace

TEST_CASE("the finder is first on sys.meta_path", "[hooks]")
{
    CHECK(testing::run_python("import sys\nassert type(sys.meta_path[0]).__name__ == 'Finder', sys.meta_path"));
}

TEST_CASE("the finders after ours are asked as the import system asks them", "[hooks]")
{
    // A finder without find_spec is passed over; an AttributeError raised inside a find_spec is
    // that finder's failure and reaches the import; the first spec found wins.
    CHECK(testing::run_python(
        "import sys, importlib.machinery as m\n"
        "class Legacy:\n"
        "    pass\n"
        "class Broken:\n"
        "    @staticmethod\n"
        "    def find_spec(name, path=None, target=None):\n"
        "        if name == 'broken_finder_probe':\n"
        "            raise AttributeError('inside find_spec')\n"
        "        return None\n"
        "class Giving:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'given_probe':\n"
        "            return m.ModuleSpec(name, None, is_package=True)\n"
        "        return None\n"
        "sys.meta_path[1:1] = [Legacy(), Broken, Giving()]\n"
        "import given_probe\n"
        "assert given_probe.__spec__.name == 'given_probe'\n"
        "try:\n"
        "    import broken_finder_probe\n"
        "except AttributeError as e:\n"
        "    assert str(e) == 'inside find_spec', e\n"
        "else:\n"
        "    raise AssertionError('the finder\\'s AttributeError was swallowed')\n"
        "import json\n"
        "del sys.meta_path[1:4]\n"));
}

TEST_CASE("a matching module is recorded with kind, origin and call site", "[hooks]")
{
    const auto dir = testing::make_package_dir();
    write_file(dir / "deep_gemm_a" / "__init__.py", "VALUE = 1\n");
    write_file(dir / "importer_a.py", "import json\nimport deep_gemm_a\n");
    REQUIRE(testing::run_python("import importer_a"));

    const auto begins = events_of<journal::ImportBegin>(testing::recorded());
    const auto* b = find_begin(begins, "deep_gemm_a");
    REQUIRE(b);
    CHECK(b->kind == "source");
    CHECK(b->origin == (dir / "deep_gemm_a" / "__init__.py").string());
    // The identity importlib's own stat found; the real path is the supervisor's (collect::FileFacts).
    CHECK(b->identity == testing::identity_of(dir / "deep_gemm_a" / "__init__.py"));
    CHECK(b->realpath.empty());
    CHECK(b->loader.find("SourceFileLoader") != std::string::npos);
    REQUIRE_FALSE(b->stack.empty());
    CHECK(b->stack.back().file == (dir / "importer_a.py").string());
    CHECK(b->stack.back().line == 2);
    CHECK(b->stack.back().module == "importer_a");
    CHECK_FALSE(find_begin(begins, "importer_a")); // does not match the pattern
    CHECK_FALSE(find_begin(begins, "json"));
}

TEST_CASE("after the load the module and its spec have their original loader back", "[hooks]")
{
    const auto dir = testing::make_package_dir();
    write_file(dir / "deep_gemm_b.py",
               "LOADER_DURING_EXEC = type(__loader__).__name__\n"
               "IS_PACKAGE = __loader__.is_package(__name__)\n"); // forwarded to the real loader
    CHECK(testing::run_python("import deep_gemm_b, importlib.machinery as m\n"
                              "assert deep_gemm_b.LOADER_DURING_EXEC == 'LoaderWrapper'\n"
                              "assert deep_gemm_b.IS_PACKAGE is False\n"
                              "assert type(deep_gemm_b.__loader__) is m.SourceFileLoader\n"
                              "assert deep_gemm_b.__spec__.loader is deep_gemm_b.__loader__\n"));
}

TEST_CASE("an import that raises is recorded with the exception, which still reaches the importer", "[hooks]")
{
    const auto dir = testing::make_package_dir();
    write_file(dir / "deep_gemm_c.py", "raise ValueError('broken on purpose')\n");
    CHECK(testing::run_python("import sys\n"
                              "try:\n    import deep_gemm_c\nexcept ValueError as e:\n    assert 'purpose' in str(e)\n"
                              "else:\n    raise AssertionError('no error')\n"
                              "assert 'deep_gemm_c' not in sys.modules\n"));
    const auto contents = testing::recorded();
    const auto begins = events_of<journal::ImportBegin>(contents);
    const auto* b = find_begin(begins, "deep_gemm_c");
    REQUIRE(b);
    bool found = false;
    for (const auto& e : events_of<journal::ImportEnd>(contents))
        if (e.id == b->id) {
            found = true;
            REQUIRE(e.error);
            CHECK(e.error->type == "ValueError");
            CHECK(e.error->message == "broken on purpose");
            CHECK(e.error->traceback.find("deep_gemm_c.py") != std::string::npos);
        }
    CHECK(found);
}

TEST_CASE("an extension loaded under two names bypassing sys.meta_path is a duplicate init", "[hooks]")
{
    const std::string so_dir = std::string(IMPORTSCOPE_PROBES_DIR) + "/deepgemm_capi/vllm_mini/third_party/deep_gemm";
    REQUIRE(testing::run_python("import glob, importlib.util\n"
                                "path = glob.glob('" +
                                so_dir +
                                "/_C*.so')[0]\n"
                                "for name in ('first._C', 'second._C'):\n"
                                "    spec = importlib.util.spec_from_file_location(name, path)\n"
                                "    module = importlib.util.module_from_spec(spec)\n"
                                "    spec.loader.exec_module(module)\n"));
    const auto model = analysis::build_model(testing::recorded());
    const auto findings = analysis::analyze(model);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].module_names == std::vector<std::string>{"first._C", "second._C"});
    CHECK(findings[0].file.find("deepgemm_capi") != std::string::npos);
}

TEST_CASE("every extension is recorded through the finder, whatever the pattern", "[hooks]")
{
    REQUIRE(testing::run_python("import _testcapi"));
    const auto contents = testing::recorded();
    const auto begins = events_of<journal::ImportBegin>(contents);
    const auto* b = find_begin(begins, "_testcapi");
    REQUIRE(b);
    CHECK(b->kind == "extension");
    bool audited = false;
    for (const auto& e : events_of<journal::ExtensionLoad>(contents))
        audited = audited || e.name == "_testcapi";
    CHECK(audited);
}

TEST_CASE("an exception reported as uncaught is recorded whatever excepthook is installed", "[hooks]")
{
    testing::run_python("import sys\nsys.excepthook = lambda *a: None\nraise KeyError('lost key')");
    const auto uncaught = events_of<journal::UncaughtException>(testing::recorded());
    REQUIRE(uncaught.size() == 1);
    CHECK(uncaught[0].exception.type == "KeyError");
    CHECK(uncaught[0].exception.message == "'lost key'");
}

TEST_CASE("a record's parent is ModuleSpec.parent: the package itself, or the name up to its last dot", "[hooks]")
{
    const auto dir = testing::make_package_dir();
    write_file(dir / "deep_gemm_p" / "__init__.py", "from . import sub\n");
    write_file(dir / "deep_gemm_p" / "sub.py", "X = 1\n");
    REQUIRE(testing::run_python("import deep_gemm_p\n"
                                "assert deep_gemm_p.__spec__.parent == 'deep_gemm_p'\n"
                                "assert deep_gemm_p.sub.__spec__.parent == 'deep_gemm_p'\n"));
    const auto begins = events_of<journal::ImportBegin>(testing::recorded());
    const auto* package = find_begin(begins, "deep_gemm_p");
    const auto* module = find_begin(begins, "deep_gemm_p.sub");
    REQUIRE(package);
    REQUIRE(module);
    CHECK(package->parent == "deep_gemm_p");
    CHECK(module->parent == "deep_gemm_p");
    CHECK(package->loader == "_frozen_importlib_external.SourceFileLoader");
    CHECK(module->loader == "_frozen_importlib_external.SourceFileLoader");
}

TEST_CASE("every sys.path entry holding a top-level name is found, whether its finder's listing is current or not",
          "[hooks]")
{
    // A, B and C with listings read after the copies were written (A's rules the name out, B holds
    // a module file, C a package); D's listing read before its copy was written, so stale.
    const auto base = testing::make_package_dir();
    for (const char* entry : {"A", "B", "C", "D"})
        write_file(base / entry / (std::string("probe_") + entry + ".py"), "X = 1\n");
    write_file(base / "B" / "inst_twice.py", "X = 1\n");
    write_file(base / "C" / "inst_twice" / "__init__.py", "X = 1\n");
    REQUIRE(testing::run_python("import sys\n"
                                "sys.path[:0] = [" + nlohmann::json(base / "A").dump() + ", " +
                                nlohmann::json(base / "B").dump() + ", " + nlohmann::json(base / "C").dump() +
                                ", " + nlohmann::json(base / "D").dump() + "]\n"
                                "import probe_A, probe_B, probe_C, probe_D\n"));
    write_file(base / "D" / "inst_twice" / "__init__.py", "X = 1\n");
    REQUIRE(testing::run_python("import inst_twice\nassert inst_twice.__file__.endswith('B/inst_twice.py')"));

    const std::optional<journal::Installation> found = recorded_installation("inst_twice");
    REQUIRE(found);
    CHECK(found->origin == (base / "B" / "inst_twice.py").string());
    CHECK(found->shadowed == std::vector<std::string>{(base / "C" / "inst_twice" / "__init__.py").string(),
                                                      (base / "D" / "inst_twice" / "__init__.py").string()});
}

TEST_CASE("where sys.path imports a name from is PathFinder's, though another finder gave the import its spec",
          "[hooks]")
{
    // E1 and E2 both hold inst_other; a finder ahead of PathFinder hands out E2's copy, while
    // PathFinder over sys.path would give E1's, which shadows E2's.
    const auto base = testing::make_package_dir();
    write_file(base / "E1" / "inst_other.py", "X = 1\n");
    write_file(base / "E2" / "inst_other.py", "X = 2\n");
    REQUIRE(testing::run_python(
        "import sys, importlib.util\n"
        "class Hands:\n"
        "    @staticmethod\n"
        "    def find_spec(name, path=None, target=None):\n"
        "        if name == 'inst_other':\n"
        "            return importlib.util.spec_from_file_location(name, " +
        nlohmann::json((base / "E2" / "inst_other.py").string()).dump() +
        ")\n"
        "sys.path[:0] = [" + nlohmann::json(base / "E1").dump() + ", " + nlohmann::json(base / "E2").dump() +
        "]\n"
        "sys.meta_path.insert(1, Hands)\n"
        "try:\n"
        "    import inst_other\n"
        "finally:\n"
        "    sys.meta_path.remove(Hands)\n"
        "assert inst_other.X == 2\n"));
    const std::optional<journal::Installation> found = recorded_installation("inst_other");
    REQUIRE(found);
    CHECK(found->origin == (base / "E1" / "inst_other.py").string());
    CHECK(found->shadowed == std::vector<std::string>{(base / "E2" / "inst_other.py").string()});
}

TEST_CASE("frames shared by many stacks are described once and read back whole", "[hooks]")
{
    // Ten imports from one loop line share their outer frames; a recursive function imports from
    // the same line at several depths, so one stack holds the same frame more than once.
    const auto dir = testing::make_package_dir();
    for (int i = 0; i < 10; ++i)
        write_file(dir / ("deep_gemm_s" + std::to_string(i) + ".py"), "X = 1\n");
    for (int i = 0; i < 3; ++i)
        write_file(dir / ("deep_gemm_r" + std::to_string(i) + ".py"), "X = 1\n");
    write_file(dir / "importer_s.py",
               "import importlib\n"
               "def load_all():\n"
               "    for i in range(10):\n"
               "        importlib.import_module(f'deep_gemm_s{i}')\n"
               "def deeper(n):\n"
               "    if n < 3:\n"
               "        importlib.import_module(f'deep_gemm_r{n}')\n"
               "        deeper(n + 1)\n"
               "def recurse(n):\n"
               "    return recurse(n - 1) if n else deeper(0)\n"
               "load_all()\n"
               "recurse(2)\n");
    REQUIRE(testing::run_python("import importer_s"));
    const auto contents = testing::recorded();
    REQUIRE(contents.problems.empty());
    const auto begins = events_of<journal::ImportBegin>(contents);
    for (int i = 0; i < 10; ++i) {
        const auto* b = find_begin(begins, "deep_gemm_s" + std::to_string(i));
        REQUIRE(b);
        REQUIRE(b->stack.size() >= 2);
        const auto& site = b->stack.back();
        CHECK(site.file == (dir / "importer_s.py").string());
        CHECK(site.line == 4);
        CHECK(site.function == "load_all");
        CHECK(site.module == "importer_s");
        CHECK(b->stack[b->stack.size() - 2].line == 11);
    }
    const auto* r2 = find_begin(begins, "deep_gemm_r2");
    REQUIRE(r2);
    std::vector<std::pair<std::string, int>> frames;
    for (const auto& f : r2->stack)
        if (f.file == (dir / "importer_s.py").string())
            frames.emplace_back(f.function, f.line);
    // recurse(2) -> recurse(1) -> recurse(0) -> deeper(0) -> deeper(1) -> deeper(2) -> import
    const std::vector<std::pair<std::string, int>> expected = {
        {"<module>", 12}, {"recurse", 10}, {"recurse", 10}, {"recurse", 10},
        {"deeper", 8},    {"deeper", 8},   {"deeper", 7}};
    CHECK(frames == expected);
}

namespace {

/// Python that notes, in SEEN, what traceback.extract_stack() sees where `here(name)` is called
/// just before the import of `name`, without the frames of the import machinery.
constexpr const char* k_note_stacks =
    "import importlib, json, traceback\n"
    "SEEN = {}\n"
    "def here(name):\n"
    "    SEEN[name] = [[f.filename, f.name, f.lineno] for f in traceback.extract_stack()[:-1]\n"
    "                  if not f.filename.startswith('<frozen importlib')]\n";

/// Writes `importer` (k_note_stacks, then `body`, then the writing of what it noted) beside a
/// module of `X = 1` for each of `names`, imports it, and checks that each name's recorded import
/// stack is the one traceback saw.
void check_stacks_against_traceback(const std::string& importer, const std::string& body,
                                    const std::vector<std::string>& names)
{
    const auto dir = testing::make_package_dir();
    for (const std::string& name : names)
        write_file(dir / (name + ".py"), "X = 1\n");
    const auto seen_path = dir / "seen.json";
    write_file(dir / (importer + ".py"), std::string(k_note_stacks) + body + "with open(" +
                                             nlohmann::json(seen_path.string()).dump() +
                                             ", 'w') as out:\n    json.dump(SEEN, out)\n");
    REQUIRE(testing::run_python("import " + importer));
    const nlohmann::json seen = nlohmann::json::parse(std::ifstream(seen_path));
    const auto begins = events_of<journal::ImportBegin>(testing::recorded());
    for (const std::string& name : names) {
        INFO(name);
        const auto* b = find_begin(begins, name);
        REQUIRE(b);
        nlohmann::json recorded = nlohmann::json::array();
        for (const auto& f : b->stack)
            recorded.push_back({f.file, f.function, f.line});
        CHECK(recorded == seen.at(name));
    }
}

} // namespace

TEST_CASE("a recorded stack is the one Python's traceback module sees at the import", "[hooks]")
{
    // Imports from a generator, a class body, a comprehension inside a nested function (through
    // importlib.import_module) and __import__; each line first notes traceback.extract_stack(),
    // without the frames of the import machinery (of the import of importer_w itself), which a
    // recorded stack leaves out.
    check_stacks_against_traceback(
        "importer_w",
        "def gen():\n"
        "    here('deep_gemm_w1'); import deep_gemm_w1\n"
        "    yield 1\n"
        "class Body:\n"
        "    here('deep_gemm_w2'); import deep_gemm_w2\n"
        "def nested():\n"
        "    def inner():\n"
        "        return [here('deep_gemm_w3') or importlib.import_module('deep_gemm_w3') for _ in '1']\n"
        "    return inner()\n"
        "next(gen())\n"
        "nested()\n"
        "here('deep_gemm_w4'); __import__('deep_gemm_w4')\n",
        {"deep_gemm_w1", "deep_gemm_w2", "deep_gemm_w3", "deep_gemm_w4"});
}

TEST_CASE("the lines of a recorded stack are right in whatever order a code object's imports run", "[hooks]")
{
    // A line is found by walking the code's line table on from where the last look in the same
    // code object stopped (on 3.11 to 3.13, for the last few code objects): here each of twelve
    // functions imports from its last line, then one up; then each from its first line, after
    // eleven other functions' walks, more code objects than the walks kept. Each stack is checked
    // against traceback.extract_stack() at the import.
    std::string body;
    std::vector<std::string> names;
    for (int f = 0; f < 12; ++f) {
        body += fmt::format("def turn_{}(step):\n", f);
        for (int step = 2; step >= 0; --step) { // step 0 last in the text, and first to run
            const std::string name = fmt::format("deep_gemm_t{}_{}", f, step);
            names.push_back(name);
            body += fmt::format("    if step == {0}:\n        here('{1}'); import {1}\n", step, name);
        }
    }
    body += "for f in range(12):\n"
            "    for step in (0, 1):\n"
            "        globals()[f'turn_{f}'](step)\n"
            "for f in range(12):\n"
            "    globals()[f'turn_{f}'](2)\n";
    check_stacks_against_traceback("importer_t", body, names);
}

TEST_CASE("the lines of a recorded stack are right under a line tracer, as coverage.py runs a suite", "[hooks]")
{
    // While a tracer's callback runs, the traced frame's f_lineno holds its line, which the walk
    // reads instead of the line table; and on 3.11 a tracer makes the code keep an array of its
    // instructions' lines, which PyCode_Addr2Line() reads instead of the walk. The imports run in
    // a traced function, lines apart, in the tracer's callback on a line of it, and after the
    // tracer is gone.
    check_stacks_against_traceback("importer_u",
                                   "import sys\n"
                                   "def tracer(frame, event, arg):\n"
                                   "    if (event == 'line' and frame.f_code is traced.__code__\n"
                                   "            and frame.f_lineno == traced.__code__.co_firstlineno + 5):\n"
                                   "        here('deep_gemm_u4'); import deep_gemm_u4\n"
                                   "    return tracer\n"
                                   "def traced(last):\n"
                                   "    if last:\n"
                                   "        here('deep_gemm_u3'); import deep_gemm_u3\n"
                                   "        return\n"
                                   "    here('deep_gemm_u1'); import deep_gemm_u1\n"
                                   "    total = sum(range(3))\n"
                                   "    here('deep_gemm_u2'); import deep_gemm_u2\n"
                                   "sys.settrace(tracer)\n"
                                   "try:\n"
                                   "    traced(False)\n"
                                   "finally:\n"
                                   "    sys.settrace(None)\n"
                                   "traced(True)\n",
                                   {"deep_gemm_u1", "deep_gemm_u2", "deep_gemm_u3", "deep_gemm_u4"});
}

TEST_CASE("the lines that store an alias are found in the loaded code, each file read once per process", "[hooks]")
{
    // CPython 3.10 and 3.11 tell no program of a store into sys.modules: the lines are looked for
    // in the loaded modules' files. A program that makes several aliases (setuptools' vendored
    // packages make four) has each file read at the first look only.
    const auto dir = testing::make_package_dir();
    const auto setter = dir / "alias_setter_a.py";
    write_file(setter, "import sys\n"
                       "\n"
                       "def expose(module):\n"
                       "    sys.modules.setdefault('alias_key_one', module)\n"
                       "    sys.modules[\"alias_key_two\"] = module\n"
                       "    assert sys.modules['alias_key_one'] is module\n");
    REQUIRE(testing::run_python("import alias_setter_a"));
    const auto one = hook::alias_lines_in_code("alias_key_one");
    REQUIRE(one.size() == 1); // the read on line 6 stores nothing
    CHECK(one[0].file == setter.string());
    CHECK(one[0].line == 4);
    CHECK(one[0].module == "alias_setter_a");

    // Gone from the disk, the file still answers: what the first look read of it is kept.
    std::filesystem::remove(setter);
    write_file(dir / "alias_setter_b.py", "import sys\nsys.modules.update({'alias_key_two': sys})\n");
    REQUIRE(testing::run_python("import alias_setter_b"));
    const auto two = hook::alias_lines_in_code("alias_key_two");
    REQUIRE(two.size() == 2); // in the order of sys.modules: the module loaded first, first
    CHECK(two[0].file == setter.string());
    CHECK(two[0].line == 5);
    CHECK(two[1].file == (dir / "alias_setter_b.py").string());
    CHECK(two[1].line == 2);
    CHECK(two[1].module == "alias_setter_b");

    // A module whose __file__ names a FIFO is passed over, not waited on.
    const auto fifo = dir / "alias_setter_fifo.py";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    REQUIRE(testing::run_python("import sys, types\n"
                                "m = types.ModuleType('alias_setter_fifo')\n"
                                "m.__file__ = " +
                                ("'" + fifo.string() + "'") +
                                "\n"
                                "sys.modules['alias_setter_fifo'] = m\n"));
    CHECK(hook::alias_lines_in_code("alias_key_two").size() == 2);
}

TEST_CASE("the end record, made without allocating for a signal handler, reads back as a process end", "[hooks]")
{
    hook::record_process_end("signal", 6);
    const journal::JournalContents contents = testing::recorded();
    CHECK(contents.problems.empty());
    REQUIRE_FALSE(contents.events.empty());
    const auto end = std::get<journal::ProcessEnd>(contents.events.back());
    CHECK(end.how == "signal");
    CHECK(end.code == 6);
    CHECK(end.pid == static_cast<int>(::getpid()));
    CHECK(end.wall_ns > 0);
}

TEST_CASE("a sys.path entry is recorded with the directory it resolves to, whether it is there or not", "[hooks]")
{
    namespace fs = std::filesystem;
    const auto dir = testing::make_package_dir();
    fs::create_directories(dir / "real");
    fs::create_directory_symlink(dir / "real", dir / "link");
    write_file(dir / "deep_gemm_path_probe.py", "");
    const std::string link = (dir / "link").string();
    const std::string missing = (dir / "link" / "not_there" / "deeper").string();
    const std::string relative = "rel_" + dir.filename().string(); // below the working directory, not there
    hook::record_sys_path_at_start(); // as a traced process's start does: later entries are compared with it
    REQUIRE(testing::run_python("import sys\nsys.path[1:1] = [" + nlohmann::json(link).dump() + ", " +
                                nlohmann::json(missing + "/").dump() + ", " + nlohmann::json(relative).dump() +
                                "]\nimport deep_gemm_path_probe\n"));

    std::map<std::string, journal::PathEntry> entries;
    for (const auto& e : events_of<journal::SysPathEntries>(testing::recorded()))
        for (const journal::PathEntry& entry : e.entries)
            entries[entry.path] = entry;
    const fs::path real = fs::canonical(dir / "real");
    REQUIRE(entries.count(link));
    CHECK(entries[link].realpath == real.string());
    CHECK(entries[link].origin == "program");
    // Not there: its nearest existing directory resolved, then the rest as written.
    REQUIRE(entries.count(missing + "/"));
    CHECK(entries[missing + "/"].realpath == (real / "not_there" / "deeper").string());
    REQUIRE(entries.count(relative));
    CHECK(entries[relative].realpath == (fs::canonical(fs::current_path()) / relative).string());
}
