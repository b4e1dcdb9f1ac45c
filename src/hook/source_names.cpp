#include "hook/source_names.hpp"

#include "hook/journal_writer.hpp"

#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/flat_map.hpp"

#include <cstdint>
#include <functional>
#include <string_view>

namespace importscope::hook {

using capi::PyRef;

namespace {

/// What is kept of a source module the finder found: its name (held), when, and whether its load
/// was recorded. Keyed by a hash of its file's path, so that a process of 50,000 modules keeps a
/// few megabytes; a match is checked against the module itself before it counts.
struct FirstFind {
    PyObject* name = nullptr; ///< a strong reference, released with the table (never: see below)
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

/// sys.modules[name].__spec__.origin == origin: the module found first is there, from that file.
/// Its __spec__ is read from its __dict__, never through getattr, which a lazily loaded module
/// (importlib.util.LazyLoader) would take as the moment to load.
bool loaded_from(PyObject* name, std::string_view origin)
{
    PyObject* module = PyDict_GetItemWithError(PyImport_GetModuleDict(), name); // borrowed
    PyObject* spec = module && PyModule_Check(module)
                         ? PyDict_GetItemWithError(PyModule_GetDict(module), capi::interned("__spec__"))
                         : nullptr; // borrowed
    PyRef spec_origin = spec && spec != Py_None ? PyRef::steal(capi::get_attribute(spec, "origin")) : PyRef();
    const bool same = spec_origin && origin_text(spec_origin.get()) == origin;
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

} // namespace

bool found_under_another_name(PyObject* spec, PyObject* name, LoaderKind kind, bool recorded)
{
    PyRef origin_object = PyRef::steal(capi::get_attribute(spec, "origin"));
    const std::string_view origin = origin_text(origin_object.get());
    if (origin.empty()) {
        PyErr_Clear();
        return false;
    }
    const std::uint64_t key = std::hash<std::string_view>()(origin);
    auto [found, inserted] = first_finds().try_emplace(key);
    if (inserted) {
        found->name = PyRef::borrow(name).release();
        found->mono_ns = monotonic_ns();
        found->recorded = recorded;
        return false;
    }
    PyObject* const first_name = found->name; // the table's reference keeps it
    const int same_name = PyUnicode_Compare(first_name, name);
    PyErr_Clear();
    if (same_name == 0 || !loaded_from(first_name, origin))
        return false; // found again under its own name (a reload, a retry), or a hash that only collided
    // loaded_from() may run Python code (a spec's origin), and so an import that adds to the table,
    // which moves its entries: the entry is looked up again.
    FirstFind& first = *first_finds().find(key);
    if (!first.recorded) {
        record_late(first, origin, kind);
        first.recorded = true;
    }
    return true;
}

void forget_source_names()
{
    // The child's journal holds none of them; the modules stay.
    first_finds().for_each([](std::uint64_t, FirstFind& first) { first.recorded = false; });
}

} // namespace importscope::hook
