#pragma once

#include <Python.h>

#include <algorithm>
#include <cstddef>

namespace importscope::capi {

/// `name` as an interned str, made the first time and kept for the life of the process (borrowed;
/// null, with the error cleared, when it cannot be made). Lookups with it hit CPython's attribute
/// caches by identity; a name made from a C string on every call is hashed and looked up the long
/// way, which the hooks would pay on every import. `name` is known by its address after the first
/// call: a string literal, or text that never changes while the process lives.
PyObject* interned(const char* name);

/// A name spelled in the code (`interned<"origin">()`): a template argument, so that each name has
/// a place of its own for its object.
template <std::size_t N>
struct NameLiteral {
    consteval NameLiteral(const char (&name)[N]) { std::copy_n(name, N, text); } // NOLINT(google-explicit-constructor)
    char text[N]{};
};

/// interned(name) of a name spelled in the code, looked up once and then kept where it is used:
/// the hooks' look-ups on every import cost a load, where interned(const char*) may find another
/// name in the slot of this one's address.
template <NameLiteral name>
PyObject* interned()
{
    static PyObject* const object = interned(name.text);
    return object;
}

/// getattr(object, name) through interned(): a new reference, or null with the error set.
PyObject* get_attribute(PyObject* object, const char* name);

/// The same for a name spelled in the code.
template <NameLiteral name>
PyObject* get_attribute(PyObject* object)
{
    PyObject* key = interned<name>();
    return key ? PyObject_GetAttr(object, key) : PyObject_GetAttrString(object, name.text);
}

/// setattr(object, name, value) through interned(): 0, or -1 with the error set.
int set_attribute(PyObject* object, const char* name, PyObject* value);

/// sys.<name> (borrowed), or null without an error set: PySys_GetObject without making and
/// hashing a str from `name` on every call.
PyObject* sys_attribute(const char* name);

} // namespace importscope::capi
