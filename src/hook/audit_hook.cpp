#include "hook/file_facts.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"
#include "hook/stack.hpp"

#include "embed/compat.hpp"
#include "embed/python_error.hpp"
#include "importscope/util/clock.hpp"

#include <cstring>

namespace importscope::hook {

namespace {

/// The `import` event with a file name: CPython is about to run that extension's PyInit. Raised by
/// _imp.create_dynamic, so it also sees loads that never pass through sys.meta_path.
void record_extension_load(PyObject* args)
{
    JournalWriter& journal = JournalWriter::instance();
    journal::ExtensionLoad e;
    e.pid = journal.pid();
    e.seq = journal.next_seq();
    e.mono_ns = monotonic_ns();
    e.name = embed::to_utf8(PyTuple_GET_ITEM(args, 0));
    e.path = embed::to_utf8(PyTuple_GET_ITEM(args, 1));
    FileFacts facts = file_facts(e.path);
    e.realpath = std::move(facts.realpath);
    e.identity = facts.identity;
    e.stack = capture_import_stack();
    journal.append(e);
}

/// `sys.excepthook` (hook, type, value, traceback): an exception is about to be reported as
/// uncaught, whichever excepthook the target installed.
void record_uncaught_exception(PyObject* args)
{
    PyObject* value = PyTuple_GET_ITEM(args, 2); // borrowed
    if (!value || value == Py_None || !PyExceptionInstance_Check(value))
        return;
    JournalWriter& journal = JournalWriter::instance();
    const embed::DescribedException described = embed::describe_exception(value);
    journal::UncaughtException e;
    e.pid = journal.pid();
    e.seq = journal.next_seq();
    e.mono_ns = monotonic_ns();
    e.exception = {described.type_name, described.message, described.traceback};
    journal.append(e);
}

int audit_hook(const char* event, PyObject* args, void* /*user_data*/)
{
    // Called for every audited operation in the process: decide cheaply, on the first byte first.
    if (event[0] != 'i' && event[0] != 's')
        return 0;
    const bool extension_load = std::strcmp(event, "import") == 0 && PyTuple_Check(args) &&
                                PyTuple_GET_SIZE(args) >= 2 && PyUnicode_Check(PyTuple_GET_ITEM(args, 1));
    const bool uncaught = !extension_load && std::strcmp(event, "sys.excepthook") == 0 && PyTuple_Check(args) &&
                          PyTuple_GET_SIZE(args) >= 4;
    if (!(extension_load || uncaught) || !JournalWriter::instance().is_open())
        return 0;

    // Whatever error state the caller is in is theirs: set it aside and put it back unchanged.
    PyObject* pending = embed::compat::fetch_exception();
    try {
        if (extension_load)
            record_extension_load(args);
        else
            record_uncaught_exception(args);
    } catch (...) {
        // Recording must never change what the target does.
    }
    PyErr_Clear();
    if (pending)
        embed::compat::restore_exception(pending);
    return 0;
}

} // namespace

void register_audit_hook()
{
    PySys_AddAuditHook(audit_hook, nullptr);
}

} // namespace importscope::hook
