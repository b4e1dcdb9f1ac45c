#pragma once

#include "importscope/util/fixed_buffer.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

/// The journal's events, each type's fields declared once beside it (`fields`, as json_fields.hpp
/// declares a record): the only definition of the format, which docs/journal-format.md describes.
/// The hooks write each event as it happens, as a binary record (event_record.cpp, framed as
/// record_format.hpp says) appended with a single write(2) to the process's journal file or, in the
/// main process, copied into the journal it shares with the supervisor. JSON is for people:
/// `importscope journal dump` (event.cpp).
namespace importscope::journal {

/// The version of the events' fields, in every process start (a journal file's header names the
/// version of the file's form: record_format.hpp). 3: a stack's frame is its number, then its
/// fields as `Frame::fields` declares them (2 wrote the number among them; 1 numbered no frame).
inline constexpr int k_format_version = 3;

/// One frame of the Python stack that led to an import (stacks are listed innermost last).
struct Frame {
    std::string file;
    int line = 0;
    std::string function;
    std::string module; ///< __name__ of the frame's globals; empty when unknown
    /// Its number in the process's journal, from 1 (0: not numbered). A journal writes a numbered
    /// frame whole the first time a stack holds it and by number alone after that, so that the
    /// frames that every deep import repeats are written and read once.
    std::uint32_t number = 0;
    /// Written as its number alone: the journal holds it already. Set by the writer only, which
    /// then leaves the other fields empty; decode_record() with a frame table gives the whole frame.
    bool known = false;

    /// Its fields, in a report and in a journal: every field written, a missing one read as empty.
    /// `number` and `known` are the journal's, which its codecs write beside these.
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("function", e.function);
        f.field("module", e.module);
    }
};

/// A frame that many stacks hold: a journal's numbered frame is kept once, by its table and by the
/// model's stacks, which outlive the table.
using SharedFrame = std::shared_ptr<const Frame>;

/// The numbered frames of one journal, as decode_record() meets their first use.
class FrameTable {
public:
    /// Adds a numbered frame; throws std::invalid_argument when its number is taken.
    void define(const Frame& frame) { define(Frame(frame)); }
    void define(Frame&& frame);
    /// The frame with that number; throws std::invalid_argument when the journal has not had it.
    const Frame& at(std::uint32_t number) const { return *shared(number); }
    /// The same, to be held beyond the table.
    const SharedFrame& shared(std::uint32_t number) const;

    /// Counts a frame copied into a stack against the journal's budget: a journal of frame numbers
    /// alone would otherwise grow without bound in memory. Throws std::invalid_argument past it.
    void charge(const Frame& frame);

    /// The journal grew by `bytes`: its stacks may copy k_copies_per_byte times as much more.
    void allow(std::size_t bytes) { m_budget += bytes * k_copies_per_byte; }

    /// Frames a stack may hold (Python's recursion limit is 1,000); what the stacks of one journal
    /// may copy, in bytes: a base, and a multiple of the journal's size (a real journal's frame
    /// numbers expand about 50 times; one of repeated numbers of a huge frame, thousands of times).
    static constexpr std::size_t k_max_stack = 4096;
    static constexpr std::size_t k_base_budget = std::size_t{128} << 20;
    static constexpr std::size_t k_copies_per_byte = 32;

private:
    /// The frame with that number, or null when the table has none.
    const SharedFrame* find(std::uint32_t number) const;

    /// Frames 1, 2, 3, ..., as importscope's hooks number them, by number - 1; any other number
    /// (a journal not of the hooks') in the map.
    std::vector<SharedFrame> m_in_order;
    std::unordered_map<std::uint32_t, SharedFrame> m_out_of_order;
    std::size_t m_copied_bytes = 0;
    std::size_t m_budget = k_base_budget;
};

/// An exception as Python described it when it was raised.
struct ExceptionInfo {
    std::string type;      ///< qualified name, e.g. "ImportError"
    std::string message;   ///< str(exception)
    std::string traceback; ///< traceback.format_exception() joined

    /// Its fields, in a report and in a journal: every field written, a missing one read as empty.
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("type", e.type);
        f.field("message", e.message);
        f.field("traceback", e.traceback);
    }
};

/// File identity of an imported file: (st_dev, st_ino) names one file whatever path reached it.
/// In an event, the writer gives it when importlib's own stat of the file told it (hook/
/// importlib_stats.hpp), with no real path: the file is then not a symlink, and the supervisor
/// resolves its directory alone (collect::FileFacts); otherwise the supervisor finds both.
struct FileIdentity {
    std::uint64_t dev = 0;
    std::uint64_t ino = 0;
    bool operator==(const FileIdentity&) const = default;
    auto operator<=>(const FileIdentity&) const = default; // NOLINT(modernize-use-nullptr): clang-tidy 14 misreads it

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("dev", e.dev);
        f.required("ino", e.ino);
    }
};

// Each event type declares its journal form once, in `fields`, as json_fields.hpp declares a record:
// its fields in the order a record holds them, each with its name in the JSON of `journal dump`
// (after its `ev`), `required` or `field` (always there) or `optional` (a std::optional, left out
// when empty). The record's writer and reader (event_record.cpp) and the JSON writer (event.cpp) all
// walk that declaration; a nested object (a frame, an exception, a file identity, a type owner, a
// sys.path entry) declares its own.

/// `pid`, `seq` and `t`: the fields that every event but the process start begins with.
template <typename Fields, typename Event>
void stamp(Fields& f, Event& e)
{
    f.required("pid", e.pid);
    f.required("seq", e.seq);
    f.required("t", e.mono_ns);
}

/// First event of every traced process.
struct ProcessStart {
    int pid = 0;
    int ppid = 0;
    std::vector<std::string> argv;
    std::string executable;     ///< sys.executable as the target sees it
    std::string python_version; ///< sys.version, first word
    std::string cwd;
    std::string start_method; ///< "main" for the process importscope started
    std::int64_t wall_ns = 0; ///< CLOCK_REALTIME at start
    std::int64_t mono_ns = 0; ///< CLOCK_MONOTONIC at start, the base of every other event's time
    int format = k_format_version;

    static constexpr std::string_view ev = "process";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("format", e.format);
        f.required("pid", e.pid);
        f.required("ppid", e.ppid);
        f.required("argv", e.argv);
        f.required("executable", e.executable);
        f.required("python", e.python_version);
        f.required("cwd", e.cwd);
        f.required("start_method", e.start_method);
        f.required("wall_ns", e.wall_ns);
        f.required("t", e.mono_ns);
    }
};

/// The `import` audit event with a file name: CPython is about to run this extension's PyInit.
/// Raised for every extension load, including those that bypass sys.meta_path.
struct ExtensionLoad {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string name;
    std::string path;
    std::string realpath;
    std::optional<FileIdentity> identity;
    std::vector<Frame> stack;
    /// The library, loaded already, exports no PyInit for this name: the load fails before any
    /// init runs. False when it does, or when that cannot be known before the load.
    bool no_init = false;

    static constexpr std::string_view ev = "ext";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("name", e.name);
        f.required("path", e.path);
        f.field("realpath", e.realpath);
        f.optional("identity", e.identity);
        f.field("stack", e.stack);
        f.field("no_init", e.no_init);
    }
};

/// The finder's loader wrapper started loading a recorded module, or an extension is loaded by path
/// (`by_path`: _imp.create_dynamic called outside the finder's wrapper, as
/// importlib.util.module_from_spec does for a spec_from_file_location spec).
struct ImportBegin {
    int pid = 0;
    std::uint64_t seq = 0;
    std::uint64_t id = 0; ///< pairs this event with its ImportEnd
    std::int64_t mono_ns = 0;
    std::string name;
    std::string kind; ///< extension, source, bytecode, namespace, builtin, frozen, other
    std::string origin;
    std::string realpath;
    std::optional<FileIdentity> identity;
    std::string loader; ///< the loader's class name
    std::string parent; ///< the parent package, empty for a top-level module
    std::vector<Frame> stack;
    bool stdlib = false; ///< its top-level package is the standard library's (sys.stdlib_module_names)
    /// Written when a second name found its file (source_names.cpp), after the module was loaded
    /// unrecorded: no stack, and `t` is when the finder found it.
    bool late = false;
    bool by_path = false; ///< an extension loaded outside sys.meta_path: no finder was asked for it

    static constexpr std::string_view ev = "begin";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("id", e.id);
        f.required("name", e.name);
        f.required("kind", e.kind);
        f.field("origin", e.origin);
        f.field("realpath", e.realpath);
        f.optional("identity", e.identity);
        f.field("loader", e.loader);
        f.field("parent", e.parent);
        f.field("stack", e.stack);
        f.field("stdlib", e.stdlib);
        f.field("late", e.late);
        f.field("by_path", e.by_path);
    }
};

/// The loader wrapper finished; `error` is set when create_module or exec_module raised.
struct ImportEnd {
    int pid = 0;
    std::uint64_t seq = 0;
    std::uint64_t id = 0;
    std::int64_t mono_ns = 0;
    std::optional<ExceptionInfo> error;
    /// The warnings an extension's init issued ("RuntimeWarning: nanobind: type 'Runtime' was
    /// already registered!"), as "<category>: <message>".
    std::vector<std::string> warnings;
    /// An extension's init gave back a module already made, named so, instead of a new one
    /// (Cython's guard against a second init); empty when it made its own.
    std::string existing_module;

    static constexpr std::string_view ev = "end";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("id", e.id);
        f.optional("error", e.error);
        f.field("warnings", e.warnings);
        f.field("existing", e.existing_module);
    }
};

/// An exception reached sys.excepthook (the `sys.excepthook` audit event): the target is ending
/// with an uncaught exception.
struct UncaughtException {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    ExceptionInfo exception;

    static constexpr std::string_view ev = "uncaught";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("exception", e.exception);
    }
};

/// The traced process is ending: exit() (with its status), os._exit() or a fatal signal. Written
/// from inside the process, so a SIGKILL leaves no such event.
struct ProcessEnd {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::int64_t wall_ns = 0;
    std::string how; ///< "exit", "os._exit" or "signal"
    int code = 0;    ///< the exit status, or the signal number for "signal"

    static constexpr std::string_view ev = "exit";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("wall_ns", e.wall_ns);
        f.required("how", e.how);
        f.required("code", e.code);
    }
};

/// The traced process started another program (audit events os.exec, os.posix_spawn,
/// subprocess.Popen, os.system). A Python child appears as a process of its own as well.
struct ProgramStart {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string via;        ///< the audit event: "os.exec", "subprocess.Popen", ...
    std::string executable; ///< may be empty (os.system)
    std::vector<std::string> argv;
    /// What the program's environment keeps of the run's: "" when it inherits this process's,
    /// "kept" when a given env= still names the run and the bootstrap, "no-bootstrap-path" when it
    /// names the run but its PYTHONPATH lost the bootstrap, "dropped" when it names neither.
    std::string env;

    static constexpr std::string_view ev = "program";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("via", e.via);
        f.field("executable", e.executable);
        f.required("argv", e.argv);
        f.field("env", e.env);
    }
};

/// A sys.modules key whose module has another __name__ (an alias), seen the first time an import
/// went through it as a parent package.
struct AliasSeen {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string key;          ///< e.g. "deep_gemm"
    std::string module_name;  ///< the module's __name__, e.g. "vllm.third_party.deep_gemm"
    std::string file;         ///< the module's __file__, if any
    std::vector<Frame> stack; ///< the import that went through it
    /// The stack that stored the package under that key (CPython 3.12 and later), innermost last.
    std::vector<Frame> set_by;
    /// Where no notice of stores exists (CPython 3.10 and 3.11): the lines of the loaded modules'
    /// code that store a module under the quoted key (hook/alias_lines.hpp), found when the alias was
    /// first used; no function, the module is the file's.
    std::vector<Frame> set_in_code;

    static constexpr std::string_view ev = "alias";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("key", e.key);
        f.required("module", e.module_name);
        f.field("file", e.file);
        f.field("stack", e.stack);
        f.field("set_by", e.set_by);
        f.field("set_in_code", e.set_in_code);
    }
};

/// Which loaded modules expose a type named like the one pybind11 refused to register again.
struct TypeOwner {
    std::string module; ///< the sys.modules key
    std::string file;   ///< that module's __file__
    std::string realpath;
    std::optional<FileIdentity> identity;
    std::string qualname;  ///< the type's __module__.__qualname__
    bool pybind11 = false; ///< its metaclass is pybind11's

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("module", e.module);
        f.field("file", e.file);
        f.field("realpath", e.realpath);
        f.optional("identity", e.identity);
        f.field("qualname", e.qualname);
        f.field("pybind11", e.pybind11);
    }
};

struct TypeOwners {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string type_name;
    std::vector<TypeOwner> owners;

    static constexpr std::string_view ev = "type_owners";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("type", e.type_name);
        f.required("owners", e.owners);
    }
};

/// Where a top-level package of a matching name is importable from sys.path (PathFinder), looked
/// up once per name: a second installation beside a vendored copy shows here.
struct Installation {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string name;
    std::string origin; ///< empty when nothing of that name is importable from sys.path
    /// Where else along sys.path it is importable, in sys.path order: copies that `origin` shadows.
    std::vector<std::string> shadowed;
    /// The name matches a --match pattern (not '*'): a loaded module named like it elsewhere (a
    /// vendored copy) is compared with it.
    bool matched = false;

    static constexpr std::string_view ev = "installation";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("name", e.name);
        f.field("origin", e.origin);
        f.field("shadowed", e.shadowed);
        f.field("matched", e.matched);
    }
};

/// A submodule no finder found although its package's directory holds an extension of that name
/// built for another interpreter (`_C.cpython-312-x86_64-linux-gnu.so` under CPython 3.11): the
/// import raises ModuleNotFoundError, which a program may catch and carry on without it.
struct NoBuild {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string name;                  ///< the module asked for, e.g. "vllm._C"
    std::vector<std::string> files;    ///< the extensions of that name in the package's directories
    std::vector<std::string> suffixes; ///< the ones this interpreter loads (EXTENSION_SUFFIXES)
    std::vector<Frame> stack;          ///< the import that asked

    static constexpr std::string_view ev = "no_build";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("name", e.name);
        f.required("files", e.files);
        f.required("suffixes", e.suffixes);
        f.field("stack", e.stack);
    }
};

/// Where the exception of a failed extension load (its `ImportEnd` has the same `id`) was next
/// seen: the outermost frame its traceback had reached, which is the frame that caught it unless it
/// ended the process (an `UncaughtException` then says so).
struct Caught {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::uint64_t id = 0;
    Frame frame; ///< file, line (of the statement it passed there), function, module

    static constexpr std::string_view ev = "caught";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("id", e.id);
        f.required("frame", e.frame);
    }
};

/// What multiprocessing says of the process, at its end, when it is one of its workers: the
/// Process's name ("SpawnProcess-1", "ForkPoolWorker-3") and the function it ran.
struct WorkerProcess {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string name;
    std::string target; ///< "module.qualname" of Process._target; empty when it has none

    static constexpr std::string_view ev = "worker";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("name", e.name);
        f.field("target", e.target);
    }
};

/// One entry of sys.path and how it got there.
struct PathEntry {
    std::string path;     ///< as sys.path holds it ("" is the working directory)
    std::string realpath; ///< the directory it names, symlinks resolved; empty when the same as path
    /// "PYTHONPATH", "site-packages", "standard library", "script directory", "working directory",
    /// ".pth file", "start-up" (added while site ran, by no .pth file's line: sitecustomize, say) or
    /// "program" (added after start-up)
    std::string origin;
    std::string pth_file; ///< the .pth file whose line adds it, for ".pth file"

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("path", e.path);
        f.field("realpath", e.realpath);
        f.required("origin", e.origin);
        f.field("pth_file", e.pth_file);
    }
};

/// sys.path as the hooks found it when they were installed (no stack), or the entries added since
/// it was last seen, noticed at the next import (its stack: the added entries came before it).
struct SysPathEntries {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::vector<PathEntry> entries;
    std::vector<Frame> stack;

    static constexpr std::string_view ev = "sys_path";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("entries", e.entries);
        f.field("stack", e.stack);
    }
};

/// The target read an environment variable through os.environ (os.getenv, os.environ.get, `in`,
/// a subscript): written for the first read of each variable from each line of code.
struct EnvironmentRead {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string name;
    bool set = false;  ///< the variable was in the environment
    std::string value; ///< its value when set, "<redacted>" when it looks like a secret
    Frame frame;       ///< the line that read it (past os.getenv and the Mapping methods)

    static constexpr std::string_view ev = "env_read";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("name", e.name);
        f.field("set", e.set);
        f.field("value", e.value);
        f.required("frame", e.frame);
    }
};

/// Something the hooks noticed that limits what the record shows (the finder was removed, say).
struct Note {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::string text;

    static constexpr std::string_view ev = "note";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
        f.required("text", e.text);
    }
};

/// The process's atexit handlers have run (importscope's, registered before the target's code,
/// runs last): its interpreter is finalizing. What follows is rarely an import, so the supervisor
/// writes the report's module records meanwhile.
struct Finalizing {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;

    static constexpr std::string_view ev = "finalizing";
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        stamp(f, e);
    }
};

using Event = std::variant<ProcessStart, ExtensionLoad, ImportBegin, ImportEnd, UncaughtException, ProcessEnd,
                           ProgramStart, AliasSeen, TypeOwners, Installation, NoBuild, Caught, WorkerProcess,
                           EnvironmentRead, SysPathEntries, Note, Finalizing>;

/// The event as one compact JSON object, `ev` first and then its fields by name, without a
/// newline: what `importscope journal dump` prints for a record. Invalid UTF-8 is replaced.
std::string encode_json(const Event& event);

/// The event as a record's payload (record_format.hpp), appended to `record`: a byte for its type
/// (its index in Event), then its fields in the order `fields` declares them, without names: a
/// number as its bytes in this machine's order, a bool as a byte, a string or a list as its 32-bit
/// length and its items, an optional value after a byte that says whether it is there, a stack's
/// frame as a byte that says whether it is known, its number, then (unless known) its fields.
/// It costs a fraction of a JSON line to write, in the process being traced.
void encode_record_to(std::string& record, const Event& event);
/// The same for an import's begin, without moving it into an Event.
void encode_record_to(std::string& record, const ImportBegin& event);

/// A process's end as a signal handler has it: ProcessEnd's fields, `how` a constant's view.
struct ProcessEndView {
    int pid = 0;
    std::uint64_t seq = 0;
    std::int64_t mono_ns = 0;
    std::int64_t wall_ns = 0;
    std::string_view how;
    int code = 0;
};
/// The room a ProcessEnd's record takes: its frame, and its fields with a short `how`.
using EndRecord = FixedBuffer<128>;
/// ProcessEnd's record, by the same declaration as every record, made without allocating (in a
/// signal handler): the whole record, frame included (record_format.hpp), replaces `record`'s contents.
void encode_end_record(EndRecord& record, const ProcessEndView& end) noexcept;

/// How decode_record() gives a frame that a record names by number alone.
enum class KnownFrames {
    whole,    ///< copied from the frame table
    by_number ///< as written (its number, and `known`), once the table is found to hold it: for a
              ///< reader that takes the table's frames itself (analysis::ModelBuilder)
};

/// A record's payload back into its event: `frames` holds the numbered frames of the records
/// before it in the same journal, and gets the ones this record writes whole; null keeps a frame
/// given by number as written (its number, and `known`), unchecked. Throws std::invalid_argument
/// with the reason when the record is not a well-formed event.
Event decode_record(std::string_view record, FrameTable* frames, KnownFrames known = KnownFrames::whole);

/// For the report: the `fields` form of frames and exceptions, both ways.
void to_json(nlohmann::json& j, const Frame& frame);
void to_json(nlohmann::json& j, const ExceptionInfo& exception);
void from_json(const nlohmann::json& j, Frame& frame);
void from_json(const nlohmann::json& j, ExceptionInfo& exception);

} // namespace importscope::journal
