#pragma once

#include <Python.h>

namespace importscope::capi {

/// `name` as an interned str, made the first time and kept for the life of the process (borrowed;
/// null, with the error cleared, when it cannot be made). Lookups with it hit CPython's attribute
/// caches by identity; a name made from a C string on every call is hashed and looked up the long
/// way, which the hooks would pay on every import. `name` is known by its address after the first
/// call: a string literal, or text that never changes while the process lives.
PyObject* interned(const char* name);

/// getattr(object, name) through interned(): a new reference, or null with the error set.
PyObject* get_attribute(PyObject* object, const char* name);

/// setattr(object, name, value) through interned(): 0, or -1 with the error set.
int set_attribute(PyObject* object, const char* name, PyObject* value);

/// sys.<name> (borrowed), or null without an error set: PySys_GetObject without making and
/// hashing a str from `name` on every call.
PyObject* sys_attribute(const char* name);

} // namespace importscope::capi
