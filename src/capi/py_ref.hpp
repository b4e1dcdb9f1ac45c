#pragma once

#include <Python.h>

#include <utility>

namespace importscope::capi {

/// The one owner of a `PyObject*` reference: move-only, released in the destructor. The wrapping
/// site says whether the reference is taken over (steal) or added (borrow).
class PyRef {
public:
    PyRef() = default;
    static PyRef steal(PyObject* object) noexcept { return PyRef(object); }
    static PyRef borrow(PyObject* object) noexcept
    {
        Py_XINCREF(object);
        return PyRef(object);
    }

    PyRef(PyRef&& other) noexcept : m_object(std::exchange(other.m_object, nullptr)) {}
    PyRef& operator=(PyRef&& other) noexcept
    {
        if (this != &other) {
            Py_XDECREF(m_object);
            m_object = std::exchange(other.m_object, nullptr);
        }
        return *this;
    }
    PyRef(const PyRef&) = delete;
    PyRef& operator=(const PyRef&) = delete;
    ~PyRef() { Py_XDECREF(m_object); }

    PyObject* get() const noexcept { return m_object; }
    /// Gives the reference away (to a C-API call that steals it, or as a return value).
    PyObject* release() noexcept { return std::exchange(m_object, nullptr); }
    explicit operator bool() const noexcept { return m_object != nullptr; }

private:
    explicit PyRef(PyObject* object) noexcept : m_object(object) {}
    PyObject* m_object = nullptr;
};

} // namespace importscope::capi
