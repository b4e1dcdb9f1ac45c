#pragma once

#include <Python.h>

namespace importscope::capi {

/// One frame of the running thread's Python stack. The references are borrowed: the frame is
/// running, and holds its code object and globals, for as long as the walk that found it.
struct FrameView {
    PyCodeObject* code = nullptr;
    PyObject* globals = nullptr;
    int last_instruction = -1; ///< what PyFrame_GetLasti() gives: a byte offset, or -1
    void* frame = nullptr;     ///< the frame itself, for line()
};

/// Walks the running thread's Python frames, innermost first, as PyEval_GetFrame() and
/// PyFrame_GetBack() do. On CPython 3.11 to 3.13 it reads the interpreter's own frames
/// (frames.cpp is the one file that sees their layout), where PyFrame_GetBack() would make a
/// frame object for each frame that has none yet: an import's stack is about 22 frames, most of
/// them importlib's, made anew for every import. Elsewhere it uses the public calls. Needs the GIL.
class FrameWalk {
public:
    FrameWalk();

    explicit operator bool() const { return m_frame != nullptr; }
    FrameView view() const;
    void next();

    /// The line the frame is at, as PyFrame_GetLineNumber() gives it.
    static int line(const FrameView& view);

private:
    void* m_frame;
};

} // namespace importscope::capi
