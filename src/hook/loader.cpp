#include "hook/loader.hpp"

#include "hook/diagnostics.hpp"
#include "hook/installations.hpp"
#include "hook/failed_loads.hpp"
#include "hook/hooks.hpp"
#include "hook/importlib_stats.hpp"
#include "hook/init_warnings.hpp"
#include "hook/journal_writer.hpp"
#include "hook/stack.hpp"

#include "capi/compat.hpp"
#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"
#include "capi/types.hpp"
#include "importscope/util/clock.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace importscope::hook {

using capi::PyRef;

namespace {

/// What a LoaderWrapper knows of its load. A C++ object inside the Python one: new_wrapper
/// constructs it in place and the type's tp_dealloc destroys it before tp_free. Nothing in it
/// allocates until an extension's init warns or gives back a module named otherwise.
struct WrappedLoad {
    PyRef wrapped;         // the original loader
    PyRef name;            // the module name
    std::uint64_t id = 0;  // pairs the journal's begin and end events
    std::int64_t begin_ns = 0;
    int pid = 0; // the process that began the load; a fork in the middle ends it in the parent only
    LoaderKind kind = LoaderKind::other;
    bool begun = false;
    bool ended = false;
    bool by_path = false;                       // an extension loaded by _imp.create_dynamic outside the finder's wrapper
    std::vector<std::string> warnings;          // what an extension's init warned
    std::optional<std::string> existing_module; // the name of the module an extension's init gave back
};

/// Wraps a module's loader for the duration of one load.
struct LoaderWrapper {
    PyObject_HEAD WrappedLoad load;
};

/// Calls `load` (the wrapped create_module or exec_module) and, for an extension, keeps what its
/// init warned.
template <typename Load>
PyObject* load_keeping_warnings(LoaderWrapper* self, Load&& load)
{
    if (self->load.kind != LoaderKind::extension)
        return load();
    InitWarnings warnings;
    PyObject* result = load();
    warnings.finish(self->load.warnings);
    return result;
}

PyTypeObject* g_wrapper_type = nullptr; // owned by the _importscope module

/// The spec whose create_module a LoaderWrapper is calling on this thread: the _imp.create_dynamic
/// call for it is that wrapper's load, recorded by it.
thread_local PyObject* t_wrapped_spec = nullptr;

LoaderWrapper* as_wrapper(PyObject* self)
{
    return reinterpret_cast<LoaderWrapper*>(self);
}

const char* type_name_of(PyObject* loader)
{
    // BuiltinImporter and FrozenImporter are used as classes, not instances.
    PyTypeObject* type = PyType_Check(loader) ? reinterpret_cast<PyTypeObject*>(loader) : Py_TYPE(loader);
    const char* name = type->tp_name;
    const char* dot = std::strrchr(name, '.');
    return dot ? dot + 1 : name;
}

/// spec.parent into `out`, without running the property's Python code: ModuleSpec gives a
/// package's own name (it has submodule_search_locations) and otherwise the name up to its last
/// dot. `name` is the spec's, which the finder was asked for.
void spec_parent_into(std::string& out, PyObject* spec, const std::string& name)
{
    if (std::string_view(Py_TYPE(spec)->tp_name) != "ModuleSpec") {
        capi::attribute_text_into(out, spec, "parent"); // another spec class may define it otherwise
        return;
    }
    PyRef locations = PyRef::steal(capi::get_attribute<"submodule_search_locations">(spec));
    if (!locations) {
        PyErr_Clear();
        capi::attribute_text_into(out, spec, "parent");
        return;
    }
    if (locations.get() != Py_None) {
        out.assign(name);
        return;
    }
    const std::size_t dot = name.rfind('.');
    out.assign(name, 0, dot == std::string::npos ? 0 : dot);
}

/// The begin event being made, kept from one import to the next so that its strings' and stack's
/// buffers are used again: a record allocates nothing once they are big enough. A begin recorded
/// while another is being made (an import by Python code that the look-ups run) takes an event
/// of its own.
class BeginEvent {
public:
    BeginEvent()
    {
        if (!scratch().busy) {
            m_scratch = &scratch();
            m_scratch->busy = true;
        }
    }
    ~BeginEvent()
    {
        if (m_scratch)
            m_scratch->busy = false;
    }
    BeginEvent(const BeginEvent&) = delete;
    BeginEvent& operator=(const BeginEvent&) = delete;

    journal::ImportBegin& operator*() { return m_scratch ? m_scratch->event : m_own; }

private:
    struct Scratch {
        journal::ImportBegin event;
        bool busy = false;
    };
    static Scratch& scratch()
    {
        thread_local Scratch kept;
        return kept;
    }

    Scratch* m_scratch = nullptr;
    journal::ImportBegin m_own;
};

void record_begin(LoaderWrapper* self, PyObject* spec)
{
    resolve_failed_loads();
    JournalWriter& journal = JournalWriter::instance();
    BeginEvent begin;
    journal::ImportBegin& e = *begin;
    e.pid = journal.pid();
    e.seq = journal.next_seq();
    e.id = self->load.id;
    capi::to_utf8_into(e.name, self->load.name.get());
    e.kind.assign(to_string(self->load.kind));
    PyRef origin = PyRef::steal(capi::get_attribute<"origin">(spec));
    if (origin && PyUnicode_Check(origin.get())) {
        capi::to_utf8_into(e.origin, origin.get());
    } else {
        PyErr_Clear();
        e.origin.clear();
    }
    e.realpath.clear(); // the supervisor's to find (collect::FileFacts), off the import's path
    e.identity = identity_importlib_found(origin.get());
    spec_parent_into(e.parent, spec, e.name);
    loader_type_name_into(e.loader, self->load.wrapped.get());
    e.stdlib = is_stdlib_name(e.name);
    e.late = false;
    e.by_path = self->load.by_path;
    // May run Python code: before the stack, which goes straight out.
    if (!self->load.by_path)
        note_installations(e.name);
    capture_import_stack_into(e.stack);
    self->load.begun = true;
    self->load.pid = journal.pid();
    self->load.begin_ns = monotonic_ns();
    e.mono_ns = self->load.begin_ns;
    append_with_stack(e);
}

/// Records the end of the load; `exception` is the error it raised, or null.
void record_end(LoaderWrapper* self, PyObject* exception)
{
    JournalWriter& journal = JournalWriter::instance();
    if (self->load.ended || self->load.pid != journal.pid())
        return;
    self->load.ended = true;
    resolve_failed_loads(exception);
    journal::ImportEnd e;
    e.pid = journal.pid();
    e.seq = journal.next_seq();
    e.id = self->load.id;
    e.mono_ns = monotonic_ns();
    if (exception) {
        const capi::DescribedException d = capi::describe_exception(exception);
        e.error = journal::ExceptionInfo{d.type_name, d.message, d.traceback};
        note_type_owners(d.message);
        if (self->load.kind == LoaderKind::extension)
            hold_failed_load(self->load.id, exception);
    }
    e.warnings = std::move(self->load.warnings);
    for (const std::string& warning : e.warnings)
        note_type_owners(warning);
    if (self->load.existing_module)
        e.existing_module = std::move(*self->load.existing_module);
    journal.append(std::move(e));
}

/// Puts the original loader back where the import system stored ours.
void give_back_loader(LoaderWrapper* self, PyObject* holder, PyObject* attribute)
{
    if (!holder || !attribute)
        return;
    PyRef current = PyRef::steal(PyObject_GetAttr(holder, attribute));
    if (current.get() == reinterpret_cast<PyObject*>(self))
        PyObject_SetAttr(holder, attribute, self->load.wrapped.get());
    PyErr_Clear();
}

/// An extension's init that gave back a module named otherwise did not make one: it found its
/// module made already, under that name (Cython's guard), and the import binds it to a second name.
void note_existing_module(LoaderWrapper* self, PyObject* module)
{
    if (self->load.kind != LoaderKind::extension || !PyModule_Check(module))
        return;
    PyObject* name = PyModule_GetNameObject(module);
    if (!name) {
        PyErr_Clear();
        return;
    }
    PyRef owned = PyRef::steal(name);
    if (PyUnicode_Compare(name, self->load.name.get()) != 0 && !PyErr_Occurred())
        self->load.existing_module = capi::to_utf8(name);
    PyErr_Clear();
}

PyObject* wrapper_create_module(PyObject* self_object, PyObject* spec)
{
    LoaderWrapper* self = as_wrapper(self_object);
    if (!self->load.begun) {
        try {
            record_begin(self, spec);
        } catch (...) {
        }
        PyErr_Clear();
    }
    PyRef method = PyRef::steal(capi::get_attribute<"create_module">(self->load.wrapped.get()));
    if (!method || (PyMethod_Check(method.get()) && PyMethod_GET_FUNCTION(method.get()) == default_create_module())) {
        // Loaders may omit create_module, and importlib's own returns None: default module
        // creation, without a call.
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject* outer_spec = t_wrapped_spec;
    t_wrapped_spec = spec; // its _imp.create_dynamic is this load's, recorded here
    PyRef module =
        PyRef::steal(load_keeping_warnings(self, [&] { return PyObject_CallOneArg(method.get(), spec); }));
    t_wrapped_spec = outer_spec;
    if (!module) {
        // For an extension this is where PyInit failed; the spec is dropped, the error goes on.
        PyRef exception = PyRef::steal(capi::compat::fetch_exception());
        record_end(self, exception.get());
        give_back_loader(self, spec, capi::interned<"loader">());
        capi::compat::restore_exception(exception.release());
        return nullptr;
    }
    note_existing_module(self, module.get());
    return module.release();
}

PyObject* wrapper_exec_module(PyObject* self_object, PyObject* module)
{
    LoaderWrapper* self = as_wrapper(self_object);
    PyRef spec = PyRef::steal(capi::get_attribute<"__spec__">(module));
    PyErr_Clear();
    if (!self->load.begun && spec) {
        // importlib.reload() executes without creating.
        try {
            record_begin(self, spec.get());
        } catch (...) {
        }
        PyErr_Clear();
    }
    PyObject* exec_name = capi::interned<"exec_module">();
    PyRef result = PyRef::steal(load_keeping_warnings(self, [&] {
        return exec_name ? PyObject_CallMethodOneArg(self->load.wrapped.get(), exec_name, module)
                         : PyObject_CallMethod(self->load.wrapped.get(), "exec_module", "O", module);
    }));
    PyRef exception = result ? PyRef() : PyRef::steal(capi::compat::fetch_exception());
    give_back_loader(self, module, capi::interned<"__loader__">());
    give_back_loader(self, spec.get(), capi::interned<"loader">());
    record_end(self, exception.get());
    if (exception) {
        capi::compat::restore_exception(exception.release());
        return nullptr;
    }
    return result.release();
}

PyObject* wrapper_getattro(PyObject* self, PyObject* name)
{
    // Everything but the two wrapped methods is the original loader's (get_resource_reader, ...).
    if (PyObject* own = PyObject_GenericGetAttr(self, name))
        return own;
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return nullptr;
    PyErr_Clear();
    return PyObject_GetAttr(as_wrapper(self)->load.wrapped.get(), name);
}

PyObject* wrapper_repr(PyObject* self)
{
    return PyObject_Repr(as_wrapper(self)->load.wrapped.get());
}

void wrapper_dealloc(PyObject* self_object)
{
    LoaderWrapper* self = as_wrapper(self_object);
    self->load.~WrappedLoad();
    PyTypeObject* type = Py_TYPE(self_object);
    type->tp_free(self_object);
    Py_DECREF(type);
}

PyMethodDef g_wrapper_methods[] = {
    {"create_module", wrapper_create_module, METH_O, "Records the start of the load, then creates the module."},
    {"exec_module", wrapper_exec_module, METH_O, "Executes the module, records the outcome, restores the loader."},
    {nullptr, nullptr, 0, nullptr},
};

PyType_Slot g_wrapper_slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(wrapper_dealloc)},
    {Py_tp_getattro, reinterpret_cast<void*>(wrapper_getattro)},
    {Py_tp_repr, reinterpret_cast<void*>(wrapper_repr)},
    {Py_tp_methods, g_wrapper_methods},
    {Py_tp_doc, const_cast<char*>("importscope's recording wrapper around a module loader.")},
    {0, nullptr},
};

PyType_Spec g_wrapper_spec = {
    "_importscope.LoaderWrapper", sizeof(LoaderWrapper), 0, Py_TPFLAGS_DEFAULT, g_wrapper_slots,
};

/// A wrapper around `loader` for one load of `name` (a new reference), or null with a Python error.
PyRef new_wrapper(PyObject* loader, PyObject* name, LoaderKind kind)
{
    assert(g_wrapper_type);
    auto* wrapper = PyObject_New(LoaderWrapper, g_wrapper_type);
    if (!wrapper)
        return PyRef();
    // PyObject_New made the head alone; from here on tp_dealloc destroys what is made here.
    WrappedLoad* load = new (&wrapper->load) WrappedLoad; // NOLINT(cppcoreguidelines-owning-memory): in place
    load->wrapped = PyRef::borrow(loader);
    load->name = PyRef::borrow(name);
    load->id = JournalWriter::instance().next_import_id();
    load->kind = kind;
    return PyRef::steal(reinterpret_cast<PyObject*>(wrapper));
}

// Extensions loaded by path: importlib.util.module_from_spec on a spec_from_file_location spec (or
// _imp.create_dynamic called directly) creates the module without asking sys.meta_path, so no
// finder wraps its loader. _imp's create_dynamic and exec_dynamic, which every extension load
// calls, are replaced by recording ones that record such a load as the finder's wrapper would (a
// begin marked by_path, then its outcome) and pass every other call straight on.

PyObject* g_create_dynamic = nullptr; // _imp's own (a reference kept for good)
PyObject* g_exec_dynamic = nullptr;   // _imp's own (a reference kept for good)

/// Loads by path whose module has an exec step still to run (multi-phase init, PEP 489): their
/// outcome is known once _imp.exec_dynamic ran it. A module never executed stays incomplete.
struct PendingExec {
    PyRef module;
    PyRef wrapper;
};
std::vector<PendingExec>& pending_execs()
{
    static auto* pending = new std::vector<PendingExec>; // NOLINT(cppcoreguidelines-owning-memory): never freed
    return *pending;
}

bool has_exec_step(PyObject* module)
{
    if (!PyModule_Check(module))
        return false;
    PyModuleDef* def = PyModule_GetDef(module);
    PyErr_Clear();
    return def && def->m_slots;
}

/// The recorded load of an extension by path: `load` is _imp.create_dynamic's call.
template <typename Load>
PyObject* record_load_by_path(PyObject* spec, PyObject* name, Load&& load)
{
    PyRef loader = PyRef::steal(capi::get_attribute<"loader">(spec));
    PyErr_Clear();
    PyRef wrapper = new_wrapper(loader ? loader.get() : Py_None, name, LoaderKind::extension);
    if (!wrapper) {
        PyErr_Clear();
        return load();
    }
    LoaderWrapper* self = as_wrapper(wrapper.get());
    self->load.by_path = true;
    try {
        record_begin(self, spec);
    } catch (...) {
    }
    PyErr_Clear();
    PyRef module = PyRef::steal(load_keeping_warnings(self, load));
    if (!module) {
        PyRef exception = PyRef::steal(capi::compat::fetch_exception());
        record_end(self, exception.get());
        capi::compat::restore_exception(exception.release());
        return nullptr;
    }
    note_existing_module(self, module.get());
    if (has_exec_step(module.get()) && pending_execs().size() < 64)
        pending_execs().push_back({PyRef::borrow(module.get()), std::move(wrapper)});
    else
        record_end(self, nullptr);
    return module.release();
}

PyObject* recorded_create_dynamic(PyObject* /*module*/, PyObject* const* args, Py_ssize_t nargs)
{
    auto load = [&] { return PyObject_Vectorcall(g_create_dynamic, args, static_cast<std::size_t>(nargs), nullptr); };
    if (nargs < 1 || args[0] == t_wrapped_spec || !JournalWriter::instance().is_open())
        return load();
    PyRef name = PyRef::steal(capi::get_attribute<"name">(args[0]));
    if (!name || !PyUnicode_Check(name.get())) {
        PyErr_Clear();
        return load();
    }
    return record_load_by_path(args[0], name.get(), load);
}

PyObject* recorded_exec_dynamic(PyObject* /*module*/, PyObject* const* args, Py_ssize_t nargs)
{
    auto exec = [&] { return PyObject_Vectorcall(g_exec_dynamic, args, static_cast<std::size_t>(nargs), nullptr); };
    std::vector<PendingExec>& pending = pending_execs();
    const auto it = std::find_if(pending.begin(), pending.end(),
                                 [&](const PendingExec& p) { return nargs >= 1 && p.module.get() == args[0]; });
    if (it == pending.end())
        return exec();
    const PyRef wrapper = std::move(it->wrapper);
    pending.erase(it);
    LoaderWrapper* self = as_wrapper(wrapper.get());
    PyRef result = PyRef::steal(load_keeping_warnings(self, exec));
    PyRef exception = result ? PyRef() : PyRef::steal(capi::compat::fetch_exception());
    record_end(self, exception.get());
    if (exception) {
        capi::compat::restore_exception(exception.release());
        return nullptr;
    }
    return result.release();
}

PyMethodDef g_create_dynamic_def = {"create_dynamic", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(recorded_create_dynamic)),
                                    METH_FASTCALL, "_imp.create_dynamic, recording a load by path."};
PyMethodDef g_exec_dynamic_def = {"exec_dynamic", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(recorded_exec_dynamic)),
                                  METH_FASTCALL, "_imp.exec_dynamic, recording the end of a load by path."};

/// Replaces _imp's function `name` with `def`, keeping the original in `original`.
void replace_imp_function(PyObject* imp, const char* name, PyMethodDef* def, PyObject*& original)
{
    PyRef own = PyRef::steal(PyObject_GetAttrString(imp, name));
    if (!own)
        throw capi::PythonError(fmt::format("finding _imp.{}", name));
    if (PyCFunction_Check(own.get()) && PyCFunction_GET_FUNCTION(own.get()) == def->ml_meth)
        return; // installed already
    PyRef replacement = PyRef::steal(PyCFunction_NewEx(def, nullptr, nullptr));
    if (!replacement || PyObject_SetAttrString(imp, name, replacement.get()) < 0)
        throw capi::PythonError(fmt::format("replacing _imp.{}", name));
    original = own.release();
}

} // namespace

void record_loads_by_path()
{
    PyRef imp = PyRef::steal(PyImport_ImportModule("_imp"));
    if (!imp)
        throw capi::PythonError("importing _imp");
    replace_imp_function(imp.get(), "create_dynamic", &g_create_dynamic_def, g_create_dynamic);
    replace_imp_function(imp.get(), "exec_dynamic", &g_exec_dynamic_def, g_exec_dynamic);
}

/// Asked of each class once: loaders are instances of a handful of classes, and a type's __module__
/// and __qualname__ cost more than the rest of a record.
void loader_type_name_into(std::string& out, PyObject* loader)
{
    PyObject* type = PyType_Check(loader) ? loader : reinterpret_cast<PyObject*>(Py_TYPE(loader));
    // Holds Python references: never destroyed, so nothing is released after finalization.
    static auto* names = new std::vector<std::pair<PyRef, std::string>>; // NOLINT(cppcoreguidelines-owning-memory)
    for (const auto& [known, name] : *names)
        if (known.get() == type) {
            out.assign(name);
            return;
        }
    out = capi::qualified_type_name(type);
    if (names->size() < 64)
        names->emplace_back(PyRef::borrow(type), out);
}

bool is_loader_wrapper(PyObject* loader)
{
    return g_wrapper_type && Py_TYPE(loader) == g_wrapper_type;
}

LoaderKind loader_kind(PyObject* loader)
{
    const std::string_view name = type_name_of(loader);
    if (name == "ExtensionFileLoader")
        return LoaderKind::extension;
    if (name == "SourceFileLoader")
        return LoaderKind::source;
    if (name == "SourcelessFileLoader")
        return LoaderKind::bytecode;
    if (name == "NamespaceLoader" || name == "_NamespaceLoader")
        return LoaderKind::namespace_package;
    if (name == "BuiltinImporter")
        return LoaderKind::builtin;
    if (name == "FrozenImporter")
        return LoaderKind::frozen;
    if (name == "zipimporter")
        return LoaderKind::zip;
    return LoaderKind::other;
}

bool ready_loader_type(PyObject* module)
{
    g_wrapper_type = capi::add_type(module, &g_wrapper_spec, "LoaderWrapper");
    return g_wrapper_type != nullptr;
}

bool wrap_spec_loader(PyObject* spec, PyObject* loader, PyObject* name, LoaderKind kind)
{
    PyRef wrapper = new_wrapper(loader, name, kind);
    PyObject* key = capi::interned<"loader">();
    return wrapper && key && PyObject_SetAttr(spec, key, wrapper.get()) == 0;
}

void record_namespace_package(PyObject* spec, PyObject* name)
{
    JournalWriter& journal = JournalWriter::instance();
    PyRef locations = PyRef::steal(capi::get_attribute<"submodule_search_locations">(spec));
    if (!journal.is_open() || !locations || locations.get() == Py_None) {
        PyErr_Clear(); // a spec without a loader that is no namespace package: the import fails on its own
        return;
    }
    journal::ImportBegin begin;
    begin.pid = journal.pid();
    begin.seq = journal.next_seq();
    begin.id = journal.next_import_id();
    begin.name = capi::to_utf8(name);
    begin.kind = to_string(LoaderKind::namespace_package);
    begin.loader = "NamespaceLoader";
    begin.parent = begin.name; // ModuleSpec.parent, as for every record: a package is its own
    PyRef iterator = PyRef::steal(PyObject_GetIter(locations.get()));
    if (PyRef first = iterator ? PyRef::steal(PyIter_Next(iterator.get())) : PyRef(); first && PyUnicode_Check(first.get()))
        begin.origin = capi::to_utf8(first.get());
    PyErr_Clear();
    begin.stack = capture_import_stack();
    begin.mono_ns = monotonic_ns();
    const std::uint64_t id = begin.id;
    append_with_stack(begin);
    journal::ImportEnd end;
    end.pid = journal.pid();
    end.seq = journal.next_seq();
    end.id = id;
    end.mono_ns = monotonic_ns();
    journal.append(std::move(end));
}

} // namespace importscope::hook
