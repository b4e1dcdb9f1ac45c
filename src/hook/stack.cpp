#include "hook/stack.hpp"

#include "hook/journal_writer.hpp"

#include "capi/compat.hpp"
#include "capi/frames.hpp"
#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"
#include "importscope/util/flat_map.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <string_view>

namespace importscope::hook {

using capi::PyRef;

namespace {

/// Frames of importlib's frozen bootstrap: present in every import, never the reason for one.
bool is_bootstrap_frame(std::string_view file)
{
    return file.starts_with("<frozen importlib") || file.starts_with("<frozen zipimport");
}

/// The file name objects of the bootstrap frames seen so far, so that most frames of an import are
/// told by address (the code objects of one frozen module share theirs): a handful, looked through
/// in order. Held, so that an address can never come to mean another object; never destroyed, as
/// it holds Python references.
class BootstrapFiles {
public:
    static BootstrapFiles& instance()
    {
        static auto* files = new BootstrapFiles; // NOLINT(cppcoreguidelines-owning-memory): see above
        return *files;
    }

    bool contains(PyObject* file) const { return std::find(m_files.begin(), m_files.end(), file) != m_files.end(); }

    /// Whether `text`, the UTF-8 text of `file`, names a bootstrap frame; if so, `file` is known
    /// from now on.
    bool learn(PyObject* file, std::string_view text)
    {
        if (!is_bootstrap_frame(text))
            return false;
        if (!contains(file)) {
            m_files.push_back(file);
            m_held.push_back(PyRef::borrow(file));
        }
        return true;
    }

private:
    BootstrapFiles() = default;
    std::vector<PyObject*> m_files;
    std::vector<PyRef> m_held;
};

/// importlib's public entry points (import_module, util): skipped only while nothing but import
/// machinery is below them, so the call site is the code that called them.
bool is_importlib_frame(std::string_view file)
{
    return file.find("/importlib/") != std::string_view::npos;
}

/// A str's UTF-8 text without a copy (CPython keeps it with the object); empty for anything else,
/// or for text that is not valid UTF-8 (lone surrogates), which to_utf8() escapes instead.
std::string_view utf8_view(PyObject* text)
{
    if (!text || !PyUnicode_Check(text))
        return {};
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    if (!utf8) {
        PyErr_Clear();
        return {};
    }
    return {utf8, static_cast<std::size_t>(size)};
}

/// Everything a journal frame is made of: file, function and module name are these objects' text,
/// and the line follows from the line table, the first line and the last instruction. The table
/// holds a reference to each object, so an address in it can never come to mean another object:
/// equal keys are equal frames.
struct FrameKey {
    PyObject* file;
    PyObject* function;
    PyObject* module; ///< __name__ of the frame's globals, or null
    PyObject* line_table;
    int first_line;
    int last_instruction;

    bool operator==(const FrameKey&) const = default;
};

struct FrameKeyHash {
    std::size_t operator()(const FrameKey& k) const noexcept
    {
        std::size_t h = std::hash<const void*>()(k.line_table);
        for (const std::size_t part : {std::hash<const void*>()(k.file), std::hash<const void*>()(k.function),
                                       std::hash<const void*>()(k.module), static_cast<std::size_t>(k.first_line),
                                       static_cast<std::size_t>(k.last_instruction)})
            h = h * 1'000'003 ^ part;
        return h;
    }
};

/// The numbers of the frames that the process's journal holds whole (journal::Frame::number).
/// The numbers of a capture's new frames stay pending until the event holding them is written, and
/// are dropped if it is not. Starts again when the journal does (a forked child's).
class FrameNumbers {
public:
    /// The process's one table. Never destroyed: it holds Python references, which must not be
    /// released after the interpreter has finalized.
    static FrameNumbers& instance()
    {
        static auto* numbers = new FrameNumbers; // NOLINT(cppcoreguidelines-owning-memory): see above
        return *numbers;
    }

    /// Starts a capture for the journal `serial`: drops what an unwritten capture left pending.
    void begin_capture(std::uint64_t serial)
    {
        m_pending.clear();
        m_pending_held.clear();
        if (serial != m_serial) {
            m_numbers.clear();
            m_held.clear();
            m_serial = serial;
        }
    }

    /// The frame's number and whether the journal holds it already; a new frame's number is pending.
    std::pair<std::uint32_t, bool> number(const FrameKey& key)
    {
        if (const std::uint32_t* known = m_numbers.find(key))
            return {*known, true};
        const auto pending = std::find(m_pending.begin(), m_pending.end(), key);
        const auto index = static_cast<std::uint32_t>(pending - m_pending.begin());
        if (pending != m_pending.end())
            return {next_number() + index, true}; // a recursion: the same frame twice in one stack
        m_pending.push_back(key);
        for (PyObject* object : {key.file, key.function, key.module, key.line_table})
            m_pending_held.push_back(PyRef::borrow(object));
        return {next_number() + index, false};
    }

    /// The event holding the last capture is in the journal: its new frames are known from now on.
    void commit()
    {
        for (const FrameKey& key : m_pending) {
            const std::uint32_t number = next_number();
            *m_numbers.try_emplace(key).first = number;
        }
        m_pending.clear();
        std::move(m_pending_held.begin(), m_pending_held.end(), std::back_inserter(m_held));
        m_pending_held.clear();
    }

private:
    FrameNumbers() = default;
    std::uint32_t next_number() const { return static_cast<std::uint32_t>(m_numbers.size()) + 1; }

    std::uint64_t m_serial = 0;
    FlatMap<FrameKey, std::uint32_t, FrameKeyHash> m_numbers;
    std::vector<PyRef> m_held;
    std::vector<FrameKey> m_pending;
    std::vector<PyRef> m_pending_held;
};

/// The __name__ of the frame's globals (borrowed; the globals keep it alive while the frame runs),
/// or null.
PyObject* module_name_of(PyObject* globals, PyObject* name_key)
{
    if (!globals || !PyDict_Check(globals) || !name_key)
        return nullptr;
    PyObject* name = PyDict_GetItemWithError(globals, name_key); // borrowed
    if (!name || !PyUnicode_Check(name)) {
        PyErr_Clear();
        return nullptr;
    }
    return name;
}

/// Fills `out` (whose strings' buffers are used again) with the frame `key` describes.
void describe_frame_into(journal::Frame& out, const capi::FrameView& frame, const FrameKey& key)
{
    capi::to_utf8_into(out.file, key.file);
    capi::to_utf8_into(out.function, key.function);
    out.line = capi::FrameWalk::line(frame);
    if (key.module)
        capi::to_utf8_into(out.module, key.module);
    else
        out.module.clear();
}

journal::Frame describe_frame(const capi::FrameView& frame, const FrameKey& key)
{
    journal::Frame out;
    describe_frame_into(out, frame, key);
    return out;
}

} // namespace

void capture_import_stack_into(std::vector<journal::Frame>& stack, std::size_t max_frames)
{
    assert(PyGILState_Check());
    FrameNumbers& numbers = FrameNumbers::instance();
    numbers.begin_capture(JournalWriter::instance().serial());
    // Most frames of an import are importlib's own: they are recognised by file name alone, before
    // anything else about them is looked up. A frame the journal holds already is written by number,
    // so a line number (a walk of the line table) is computed once per distinct frame.
    PyObject* const name_key = capi::interned<"__name__">(); // null: frames are described without their module
    BootstrapFiles& bootstrap = BootstrapFiles::instance();
    struct Kept {
        capi::FrameView frame;
        FrameKey key;
    };
    // The buffer's capacity is kept from one import to the next (an import that a capture starts
    // again, through a __name__ look-up, takes a buffer of its own).
    thread_local std::vector<Kept> spare;
    std::vector<Kept> kept = std::move(spare);
    kept.clear();
    bool leading = true;
    for (capi::FrameWalk walk; walk && kept.size() < max_frames; walk.next()) {
        const capi::FrameView frame = walk.view();
        PyObject* file = capi::compat::code_filename(frame.code); // borrowed
        if (bootstrap.contains(file))
            continue;
        const std::string_view file_text = utf8_view(file);
        if (bootstrap.learn(file, file_text) || (leading && is_importlib_frame(file_text)))
            continue;
        leading = false;
        kept.push_back({frame,
                        {file, capi::compat::code_name(frame.code), module_name_of(frame.globals, name_key),
                         capi::compat::code_line_table(frame.code), capi::compat::code_first_line(frame.code),
                         frame.last_instruction}});
    }
    // Numbered as a traceback reads, outermost first, so that a frame a stack holds twice (a
    // recursion) is written whole before its number is used.
    stack.resize(kept.size()); // the frames there already keep their strings' buffers
    auto out = stack.begin();
    for (auto it = kept.rbegin(); it != kept.rend(); ++it, ++out) {
        const auto [number, known] = numbers.number(it->key);
        if (known) {
            out->file.clear();
            out->function.clear();
            out->module.clear();
            out->line = 0;
        } else {
            describe_frame_into(*out, it->frame, it->key);
        }
        out->number = number;
        out->known = known;
    }
    spare = std::move(kept);
}

std::vector<journal::Frame> capture_import_stack(std::size_t max_frames)
{
    std::vector<journal::Frame> stack;
    capture_import_stack_into(stack, max_frames);
    return stack;
}

std::vector<journal::Frame> capture_plain_stack(std::size_t max_frames)
{
    assert(PyGILState_Check());
    PyObject* const name_key = capi::interned<"__name__">();
    std::vector<journal::Frame> stack;
    for (capi::FrameWalk walk; walk && stack.size() < max_frames; walk.next()) {
        const capi::FrameView frame = walk.view();
        PyObject* file = capi::compat::code_filename(frame.code); // borrowed
        if (is_bootstrap_frame(utf8_view(file)))
            continue;
        stack.push_back(describe_frame(frame, {file, capi::compat::code_name(frame.code),
                                               module_name_of(frame.globals, name_key), nullptr, 0, -1}));
    }
    std::reverse(stack.begin(), stack.end());
    return stack;
}

namespace {

/// Lets later stacks give the last capture's new frames by number, once its event is written.
bool committed_if(bool written)
{
    if (written)
        FrameNumbers::instance().commit();
    return written;
}

} // namespace

bool append_with_stack(const journal::Event& event)
{
    return committed_if(JournalWriter::instance().append(event));
}

bool append_with_stack(const journal::ImportBegin& event)
{
    return committed_if(JournalWriter::instance().append(event));
}

} // namespace importscope::hook
