#include "hook/finders_ahead.hpp"

#include "hook/hooks.hpp"

#include "capi/py_ref.hpp"
#include "capi/types.hpp"

#include <algorithm>
#include <vector>

namespace importscope::hook {

using capi::PyRef;

namespace {

/// Our find_spec on a finder ahead of ours: the finder's own, bound, then take_spec. The bound
/// method holds the finder, whose attribute holds this: a cycle, which the garbage collector
/// sees (traverse, clear) once the finder is gone from sys.meta_path and from its user.
struct FindSpecAhead {
    PyObject_HEAD PyObject* own; ///< the finder's find_spec, bound (a strong reference)
};

PyTypeObject* g_ahead_type = nullptr; // owned by the _importscope module

/// The most finders ahead of ours looked at: a target that puts a new one first for each of its
/// imports (a blocker, inserted and popped) keeps no more of them alive, and costs no longer a look.
constexpr std::size_t k_most_looked_at = 64;

/// The finders ahead of ours looked at, held: a pointer compared is then one of them.
std::vector<PyRef>& looked_at()
{
    static auto* finders =
        new std::vector<PyRef>; // NOLINT(cppcoreguidelines-owning-memory): Python references, never freed
    return *finders;
}

bool was_looked_at(PyObject* finder)
{
    const std::vector<PyRef>& finders = looked_at();
    return std::any_of(finders.begin(), finders.end(), [&](const PyRef& f) { return f.get() == finder; });
}

PyObject* ahead_call(PyObject* self, PyObject* args, PyObject* kwargs)
{
    PyRef spec = PyRef::steal(PyObject_Call(reinterpret_cast<FindSpecAhead*>(self)->own, args, kwargs));
    if (!spec || spec.get() == Py_None)
        return spec.release(); // the finder's answer, or its error, as it gave them
    PyObject* name = PyTuple_GET_SIZE(args) > 0 ? PyTuple_GET_ITEM(args, 0) // borrowed
                     : kwargs                   ? PyDict_GetItemString(kwargs, "fullname")
                                                : nullptr;
    if (!name || !PyUnicode_Check(name))
        return spec.release();
    return take_spec(std::move(spec), name, false);
}

int ahead_traverse(PyObject* self, visitproc visit, void* arg)
{
    Py_VISIT(reinterpret_cast<FindSpecAhead*>(self)->own);
    Py_VISIT(Py_TYPE(self)); // a heap type's instances hold it
    return 0;
}

int ahead_clear(PyObject* self)
{
    Py_CLEAR(reinterpret_cast<FindSpecAhead*>(self)->own);
    return 0;
}

void ahead_dealloc(PyObject* self)
{
    PyObject_GC_UnTrack(self);
    ahead_clear(self);
    PyTypeObject* type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type);
}

PyObject* ahead_repr(PyObject* self)
{
    return PyObject_Repr(reinterpret_cast<FindSpecAhead*>(self)->own);
}

PyType_Slot g_ahead_slots[] = {
    {Py_tp_call, reinterpret_cast<void*>(ahead_call)},
    {Py_tp_traverse, reinterpret_cast<void*>(ahead_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(ahead_clear)},
    {Py_tp_dealloc, reinterpret_cast<void*>(ahead_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(ahead_repr)},
    {Py_tp_doc, const_cast<char*>("A finder's own find_spec, whose specs importscope records as its finder's.")},
    {0, nullptr},
};

PyType_Spec g_ahead_spec = {"_importscope.FindSpecAhead", sizeof(FindSpecAhead), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, g_ahead_slots};

/// Sets our find_spec on `finder`, over its own (an attribute of its class, mostly).
void give_our_find_spec(PyObject* finder)
{
    PyRef own = PyRef::steal(PyObject_GetAttrString(finder, "find_spec"));
    if (!own || Py_TYPE(own.get()) == g_ahead_type || !PyCallable_Check(own.get()))
        return;
    auto* ours = PyObject_GC_New(FindSpecAhead, g_ahead_type);
    if (!ours)
        return;
    ours->own = own.release();
    PyObject_GC_Track(ours);
    PyRef held = PyRef::steal(reinterpret_cast<PyObject*>(ours));
    (void)PyObject_SetAttrString(finder, "find_spec", held.get()); // __slots__, a frozen class: left alone
}

/// Calls `visit(finder)` for each finder ahead of ours; false when ours is not on `meta_path`.
template <typename Visit>
bool for_each_ahead(PyObject* meta_path, Visit&& visit)
{
    PyObject* const ours = installed_finder();
    if (!ours || !meta_path || !PyList_Check(meta_path))
        return false;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(meta_path); ++i) {
        PyObject* finder = PyList_GET_ITEM(meta_path, i); // borrowed
        if (finder == ours)
            return true;
        if (!visit(finder))
            return true;
    }
    return false;
}

bool g_watching = false; ///< watch_finders_ahead_from_now() was called

} // namespace

void watch_finders_ahead_from_now()
{
    g_watching = true;
}

bool finders_ahead(PyObject* meta_path)
{
    if (!g_watching || looked_at().size() >= k_most_looked_at)
        return false;
    bool unseen = false;
    const bool ours_listed = for_each_ahead(meta_path, [&](PyObject* finder) {
        unseen = !was_looked_at(finder);
        return !unseen;
    });
    return ours_listed && unseen;
}

void watch_finders_ahead(PyObject* meta_path)
{
    std::vector<PyRef> unseen;
    for_each_ahead(meta_path, [&](PyObject* finder) {
        if (!was_looked_at(finder))
            unseen.push_back(PyRef::borrow(finder));
        return true;
    });
    // Looked at first, then changed: an attribute set may run Python code, which may change the list.
    for (PyRef& finder : unseen) {
        if (looked_at().size() >= k_most_looked_at)
            break;
        PyObject* const object = finder.get();
        looked_at().push_back(std::move(finder));
        if (!PyType_Check(object) && !PyModule_Check(object))
            give_our_find_spec(object);
        PyErr_Clear();
    }
}

bool ready_finder_ahead_type(PyObject* module)
{
    g_ahead_type = capi::add_type(module, &g_ahead_spec, "FindSpecAhead");
    return g_ahead_type != nullptr;
}

} // namespace importscope::hook
