// The stack walk of frames.hpp: the one place that uses CPython's internal headers, on 3.11 to
// 3.13. There it reads _PyInterpreterFrame directly, because PyFrame_GetBack makes a frame object
// for each of the about 22 frames of an import that has none: with callgrind (5,000 modules,
// --match '*'), 15.6 million instructions less in the worker on 3.11, 28 million on 3.12 and 31
// million on 3.13 (docs/benchmarks.md). The versions differ in where the frame's code object
// (3.13: f_executable) and the thread's current frame (3.13: in the thread state) are kept, and in
// 3.11's line array. 3.10, whose frames are frame objects already, uses the public API
// (PyEval_GetFrame, PyFrame_GetBack, PyFrame_GetCode).
#include <patchlevel.h>
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000
#define IMPORTSCOPE_INTERPRETER_FRAMES 1
#define Py_BUILD_CORE
#endif

#include "capi/frames.hpp"

#include <array>
#include <cassert>
#include <cstdint>

#ifdef IMPORTSCOPE_INTERPRETER_FRAMES
#include <internal/pycore_frame.h>
#else
#include <frameobject.h>
#endif

namespace importscope::capi {

#ifdef IMPORTSCOPE_INTERPRETER_FRAMES

namespace {

/// The first complete frame from `frame` outwards: PyFrame_GetBack() and PyEval_GetFrame() skip
/// frames that have not yet run their first instruction in the same way.
_PyInterpreterFrame* complete(_PyInterpreterFrame* frame)
{
    while (frame && _PyFrame_IsIncomplete(frame))
        frame = frame->previous;
    return frame;
}

_PyInterpreterFrame* as_frame(void* frame)
{
    return static_cast<_PyInterpreterFrame*>(frame);
}

/// The frame's code object (3.13 keeps it as f_executable).
PyCodeObject* code_of(_PyInterpreterFrame* frame)
{
#if PY_VERSION_HEX >= 0x030D0000
    return _PyFrame_GetCode(frame);
#else
    return frame->f_code;
#endif
}

/// The running thread's innermost frame (3.13 keeps it in the thread state itself).
_PyInterpreterFrame* current_frame()
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyThreadState_Get()->current_frame;
#else
    return PyThreadState_Get()->cframe->current_frame;
#endif
}

/// Whether a tracer made the code object an array of every instruction's line (3.11), which
/// PyCode_Addr2Line() reads instead of the table.
bool has_line_array([[maybe_unused]] PyCodeObject* code)
{
#if PY_VERSION_HEX < 0x030C0000
    return code->_co_linearray != nullptr;
#else
    return false;
#endif
}

/// Walks of the line tables of the last few code objects asked about. A module's imports are
/// looked up as it runs, from its top down, and PyCode_Addr2Line() reads the line table from its
/// start for each one: a walk kept per code object goes on from where it stopped, forward or
/// back (_PyCode_CheckLineNumber), as the frames of a nested import's stack come and go. Each
/// walk holds its code object, whose line table it points into. Never destroyed: it holds Python
/// references, which must not be released after the interpreter has finalized.
class LineTableWalks {
public:
    static LineTableWalks& instance()
    {
        static auto* walks = new LineTableWalks; // NOLINT(cppcoreguidelines-owning-memory): see above
        return *walks;
    }

    int line(PyCodeObject* code, int address) { return _PyCode_CheckLineNumber(address, &walk_of(code)); }

private:
    struct Walk {
        PyCodeObject* code = nullptr; ///< a strong reference
        PyCodeAddressRange bounds{};
    };

    PyCodeAddressRange& walk_of(PyCodeObject* code)
    {
        for (Walk& walk : m_walks)
            if (walk.code == code)
                return walk.bounds;
        Walk& walk = m_walks[m_next++ % m_walks.size()];
        Py_INCREF(code);
        Py_XSETREF(walk.code, code);
        // What CPython's _PyCode_InitAddressRange() does (not exported): the walk before the
        // first range of the table.
        walk.bounds.opaque.lo_next = reinterpret_cast<const std::uint8_t*>(PyBytes_AS_STRING(code->co_linetable));
        walk.bounds.opaque.limit = walk.bounds.opaque.lo_next + PyBytes_GET_SIZE(code->co_linetable);
        walk.bounds.opaque.computed_line = code->co_firstlineno;
        walk.bounds.ar_start = -1;
        walk.bounds.ar_end = 0;
        walk.bounds.ar_line = -1;
        return walk.bounds;
    }

    std::array<Walk, 8> m_walks;
    std::size_t m_next = 0;
};

} // namespace

FrameWalk::FrameWalk()
{
    assert(PyGILState_Check());
    m_frame = complete(current_frame());
}

FrameView FrameWalk::view() const
{
    _PyInterpreterFrame* frame = as_frame(m_frame);
    const int last = _PyInterpreterFrame_LASTI(frame);
    return {code_of(frame), frame->f_globals, last < 0 ? -1 : last * static_cast<int>(sizeof(_Py_CODEUNIT)), m_frame};
}

void FrameWalk::next()
{
    m_frame = complete(as_frame(m_frame)->previous);
}

int FrameWalk::line(const FrameView& view)
{
    _PyInterpreterFrame* frame = as_frame(view.frame);
    if (frame->frame_obj && frame->frame_obj->f_lineno != 0)
        return frame->frame_obj->f_lineno; // set by a tracer
    PyCodeObject* code = code_of(frame);
    if (view.last_instruction < 0 || has_line_array(code))
        return PyCode_Addr2Line(code, view.last_instruction); // no walk, or a tracer's array
    return LineTableWalks::instance().line(code, view.last_instruction);
}

#else

namespace {

PyFrameObject* as_frame(void* frame)
{
    return static_cast<PyFrameObject*>(frame);
}

} // namespace

FrameWalk::FrameWalk() : m_frame(PyEval_GetFrame()) // borrowed
{
    assert(PyGILState_Check());
}

FrameView FrameWalk::view() const
{
    PyFrameObject* frame = as_frame(m_frame);
    PyCodeObject* code = PyFrame_GetCode(frame);
    Py_DECREF(code); // the running frame holds it
#if PY_VERSION_HEX >= 0x030B0000
    PyObject* globals = PyFrame_GetGlobals(frame);
    Py_DECREF(globals); // the same
    const int last = PyFrame_GetLasti(frame);
#else
    PyObject* globals = frame->f_globals;
    const int last = frame->f_lasti;
#endif
    return {code, globals, last, m_frame};
}

void FrameWalk::next()
{
    PyFrameObject* back = PyFrame_GetBack(as_frame(m_frame));
    Py_XDECREF(back); // the running frame below holds it (its frame object, once made, stays)
    m_frame = back;
}

int FrameWalk::line(const FrameView& view)
{
    return PyFrame_GetLineNumber(as_frame(view.frame));
}

#endif

} // namespace importscope::capi
