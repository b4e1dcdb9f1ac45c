#include "capi/names.hpp"

#include "importscope/util/flat_map.hpp"

#include <array>
#include <cassert>
#include <cstdint>

namespace importscope::capi {

PyObject* interned(const char* name)
{
    assert(PyGILState_Check());
    // The look-ups of every import go through interned<"name">(), which keeps its object at the
    // call; these are the others (the once-per-class and once-per-top-level ones, and names made
    // at run time), nearly always through the same literal: the literal's address finds it at
    // once. Interning gives one object per text, so two literals of one text are the same name;
    // two literals that share a slot take turns in it.
    struct Recent {
        const char* name;
        PyObject* object;
    };
    static std::array<Recent, 64> recent{};
    Recent& slot = recent[(reinterpret_cast<std::uintptr_t>(name) * 0x9E3779B97F4A7C15ULL) >> 58];
    if (slot.name == name)
        return slot.object;
    static auto* by_address = new FlatMap<const char*, PyObject*>; // NOLINT(cppcoreguidelines-owning-memory): never freed
    PyObject* object = nullptr;
    if (PyObject** known = by_address->find(name)) {
        object = *known;
    } else {
        object = PyUnicode_InternFromString(name); // a reference kept for good
        if (!object) {
            PyErr_Clear();
            return nullptr;
        }
        *by_address->try_emplace(name).first = object;
    }
    slot = {name, object};
    return object;
}

PyObject* get_attribute(PyObject* object, const char* name)
{
    PyObject* key = interned(name);
    return key ? PyObject_GetAttr(object, key) : PyObject_GetAttrString(object, name);
}

int set_attribute(PyObject* object, const char* name, PyObject* value)
{
    PyObject* key = interned(name);
    return key ? PyObject_SetAttr(object, key, value) : PyObject_SetAttrString(object, name, value);
}

PyObject* sys_attribute(const char* name)
{
    assert(PyGILState_Check());
    // The sys module's dict, taken from sys.modules the first time (the interpreter's own, before
    // the target can replace that entry) and kept for good, like the interned names.
    static PyObject* sys_dict = [] {
        PyObject* key = interned("sys");
        PyObject* sys = key ? PyDict_GetItemWithError(PyImport_GetModuleDict(), key) : nullptr; // borrowed
        PyObject* dict = sys && PyModule_Check(sys) ? PyModule_GetDict(sys) : nullptr;          // borrowed
        PyErr_Clear();
        Py_XINCREF(dict);
        return dict;
    }();
    PyObject* key = interned(name);
    if (!sys_dict || !key)
        return PySys_GetObject(name);
    PyObject* value = PyDict_GetItemWithError(sys_dict, key); // borrowed
    if (!value)
        PyErr_Clear();
    return value;
}

} // namespace importscope::capi
