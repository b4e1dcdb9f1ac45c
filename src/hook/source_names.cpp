#include "hook/source_names.hpp"

#include "hook/journal_writer.hpp"

#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/flat_map.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace importscope::hook {

using capi::PyRef;

namespace {

/// What is kept of a source module the finder found: its name (held), when, and whether its load
/// was recorded. Keyed by a hash of its file's path, so that a process of 50,000 modules keeps a
/// few megabytes; a match is checked against the module itself before it counts.
struct FirstFind {
    PyObject* name = nullptr;        ///< a strong reference, released with the table (never: see below)
    PyObject* loader_type = nullptr; ///< its loader's class (a strong reference); null for __main__
    std::int64_t mono_ns = 0;
    bool recorded = false;
};

/// The table of this process. Never destroyed: it holds Python references.
/// The hash is its own: std::hash of an integer is the integer.
using FirstFinds = FlatMap<std::uint64_t, FirstFind>;

FirstFinds& first_finds()
{
    static auto* table = new FirstFinds; // NOLINT(cppcoreguidelines-owning-memory)
    return *table;
}

std::string_view origin_text(PyObject* text)
{
    Py_ssize_t size = 0;
    const char* utf8 = text && PyUnicode_Check(text) ? PyUnicode_AsUTF8AndSize(text, &size) : nullptr;
    if (!utf8) {
        PyErr_Clear();
        return {};
    }
    return {utf8, static_cast<std::size_t>(size)};
}

/// The table's key of a file: a hash of its path.
std::uint64_t key_of(std::string_view origin)
{
    return std::hash<std::string_view>()(origin);
}

/// sys.modules["__main__"] (borrowed), or null when it is no module.
PyObject* main_module()
{
    PyObject* main = PyDict_GetItemWithError(PyImport_GetModuleDict(), capi::interned<"__main__">()); // borrowed
    PyErr_Clear();
    return main && PyModule_Check(main) ? main : nullptr;
}

/// Where a module's code came from (a new reference, or null): its `__spec__.origin`, or, for a
/// main module without a spec (a script), its `__file__`. Both are read from its `__dict__`, never
/// through getattr, which a lazily loaded module (importlib.util.LazyLoader) would take as the
/// moment to load.
PyRef origin_of(PyObject* module)
{
    PyObject* globals = PyModule_GetDict(module);                                  // borrowed
    PyObject* spec = PyDict_GetItemWithError(globals, capi::interned<"__spec__">()); // borrowed
    if (spec && spec != Py_None)
        return PyRef::steal(capi::get_attribute<"origin">(spec));
    PyErr_Clear();
    return PyRef::borrow(PyDict_GetItemWithError(globals, capi::interned<"__file__">()));
}

/// The main module (borrowed) and its file, an absolute path (`origin` views `file`'s text); none
/// before the main module has one (a `-c` target never does).
struct MainFile {
    PyObject* module = nullptr;
    PyRef file;
    std::string_view origin;
};
std::optional<MainFile> main_file()
{
    MainFile main;
    main.module = main_module();
    if (!main.module)
        return std::nullopt;
    main.file = origin_of(main.module);
    PyErr_Clear();
    main.origin = origin_text(main.file.get());
    if (main.origin.empty() || main.origin.front() != '/')
        return std::nullopt;
    return main;
}

/// The main module (`__main__`, or `__mp_main__` in a multiprocessing child) is put in the table
/// once it has a file, under its own name: a module that imports the script by name then finds it
/// there (the double import trap of PEP 395). Until it has one, each call looks once.
void remember_main_module()
{
    static bool remembered = false;
    if (remembered)
        return;
    const std::optional<MainFile> main = main_file();
    if (!main)
        return;
    remembered = true;
    PyRef name = PyRef::steal(PyModule_GetNameObject(main->module));
    PyErr_Clear();
    auto [entry, inserted] = first_finds().try_emplace(key_of(main->origin));
    if (!inserted || !name)
        return; // found under a module name first (`python -m pkg.mod`): note_main_run_again() sees that one
    entry->name = name.release();
    entry->mono_ns = monotonic_ns();
}

/// sys.modules[name] came from `origin` (origin_of): the module found first is there, from that file.
bool loaded_from(PyObject* name, std::string_view origin)
{
    PyObject* module = PyDict_GetItemWithError(PyImport_GetModuleDict(), name); // borrowed
    const bool same = module && PyModule_Check(module) && origin_text(origin_of(module).get()) == origin;
    PyErr_Clear();
    return same;
}

/// The earlier, unrecorded import of `first`, journalled now: a begin and an end, marked late.
void record_late(const FirstFind& first, std::string_view origin, LoaderKind kind)
{
    JournalWriter& journal = JournalWriter::instance();
    if (!journal.is_open())
        return;
    journal::ImportBegin begin;
    begin.pid = journal.pid();
    begin.seq = journal.next_seq();
    begin.id = journal.next_import_id();
    begin.mono_ns = first.mono_ns;
    begin.name = capi::to_utf8(first.name);
    begin.kind = to_string(kind);
    begin.origin = std::string(origin);
    if (first.loader_type)
        loader_type_name_into(begin.loader, first.loader_type); // pytest's assertion rewriter, say
    else
        begin.loader = kind == LoaderKind::bytecode ? "SourcelessFileLoader" : "SourceFileLoader";
    const bool package = origin.ends_with("/__init__.py") || origin.ends_with("/__init__.pyc");
    begin.parent = package ? begin.name : begin.name.substr(0, begin.name.rfind('.') == std::string::npos ? 0 : begin.name.rfind('.'));
    begin.late = true;
    const std::uint64_t id = begin.id;
    journal.append(begin);
    journal::ImportEnd end;
    end.pid = journal.pid();
    end.seq = journal.next_seq();
    end.id = id;
    end.mono_ns = first.mono_ns;
    journal.append(std::move(end));
}

/// The first find of the file keyed `key`, journalled late unless it was recorded. Looked up here,
/// after loaded_from(), which may run Python code (a spec's origin), and so an import that adds to
/// the table and moves its entries.
void record_first_late(std::uint64_t key, std::string_view origin, LoaderKind kind)
{
    FirstFind& first = *first_finds().find(key);
    if (!first.recorded) {
        record_late(first, origin, kind);
        first.recorded = true;
    }
}

} // namespace

bool found_under_another_name(PyObject* spec, PyObject* name, PyObject* loader, LoaderKind kind, bool recorded)
{
    remember_main_module();
    PyRef origin_object = PyRef::steal(capi::get_attribute<"origin">(spec));
    const std::string_view origin = origin_text(origin_object.get());
    if (origin.empty()) {
        PyErr_Clear();
        return false;
    }
    const std::uint64_t key = key_of(origin);
    auto [found, inserted] = first_finds().try_emplace(key);
    if (inserted) {
        found->name = PyRef::borrow(name).release();
        found->loader_type = PyRef::borrow(reinterpret_cast<PyObject*>(Py_TYPE(loader))).release();
        found->mono_ns = monotonic_ns();
        found->recorded = recorded;
        return false;
    }
    PyObject* const first_name = found->name; // the table's reference keeps it
    const int same_name = PyUnicode_Compare(first_name, name);
    PyErr_Clear();
    if (same_name == 0 || !loaded_from(first_name, origin))
        return false; // found again under its own name (a reload, a retry), or a hash that only collided
    record_first_late(key, origin, kind);
    return true;
}

void note_main_run_again()
{
    const std::optional<MainFile> main = main_file();
    if (!main)
        return;
    const std::string_view origin = main->origin;
    const std::uint64_t key = key_of(origin);
    FirstFind* const first = first_finds().find(key);
    // The file ran under a module name only if another module of sys.modules has it: `python -m
    // pkg.mod` alone finds it and runs it as __main__ only, and a multiprocessing child's main
    // module is both __main__ and __mp_main__, one object.
    PyObject* const other = first ? PyDict_GetItemWithError(PyImport_GetModuleDict(), first->name) : nullptr;
    PyErr_Clear();
    if (!other || other == main->module || !loaded_from(first->name, origin))
        return;
    record_first_late(key, origin, LoaderKind::source);
    FirstFind as_main;
    as_main.name = capi::interned<"__main__">();
    as_main.mono_ns = monotonic_ns();
    record_late(as_main, origin, LoaderKind::source);
}

void forget_source_names()
{
    // The child's journal holds none of them; the modules stay.
    first_finds().for_each([](std::uint64_t, FirstFind& first) { first.recorded = false; });
}

} // namespace importscope::hook
