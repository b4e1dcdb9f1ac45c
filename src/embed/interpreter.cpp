#include "embed/interpreter.hpp"

#include "capi/compat.hpp"
#include "capi/python_error.hpp"
#include "importscope/util/error.hpp"

#include <Python.h>

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <unistd.h>

namespace importscope::embed {

namespace {

/// A PyConfig that is always cleared.
class Config {
public:
    Config() : m_config{} { PyConfig_InitPythonConfig(&m_config); }
    ~Config() { PyConfig_Clear(&m_config); }
    Config(const Config&) = delete;
    Config& operator=(const Config&) = delete;
    PyConfig* operator->() { return &m_config; }
    PyConfig* get() { return &m_config; }

private:
    PyConfig m_config;
};

StartupFailureHandler g_on_startup_failure = nullptr;

/// A failed PyStatus ends the worker the way python ends on a failed start-up, once the handler
/// has told the supervisor.
void check_status(PyStatus status)
{
    if (!PyStatus_Exception(status))
        return;
    if (g_on_startup_failure)
        g_on_startup_failure(status);
    Py_ExitStatusException(status);
}

/// python's command line for the target, as the char* array CPython's functions take.
class CommandLine {
public:
    explicit CommandLine(const WorkerPlan& plan) : m_words(python_command_line(plan.python_executable, plan.target))
    {
        m_pointers.reserve(m_words.size());
        for (auto& word : m_words)
            m_pointers.push_back(word.data());
    }
    Py_ssize_t argc() const { return static_cast<Py_ssize_t>(m_pointers.size()); }
    char** argv() { return m_pointers.data(); }

private:
    std::vector<std::string> m_words;
    std::vector<char*> m_pointers;
};

void set_string(Config& config, wchar_t** field, const std::string& value)
{
    check_status(PyConfig_SetBytesString(config.get(), field, value.c_str()));
}

/// While it lives, PYTHONPATH is the target's own, without the bootstrap directory that
/// export_to_children put first for the Python children. The interpreter reads PYTHONPATH for
/// sys.path in its core phase only; os.environ, made later, keeps the bootstrap for the children.
/// So the main process, traced already, never sees that directory on sys.path nor imports the
/// children's sitecustomize.
class TargetPythonPath {
public:
    explicit TargetPythonPath(const WorkerPlan& plan)
    {
        const char* path = std::getenv("PYTHONPATH");
        const std::optional<std::string> own = path ? target_python_path(plan, path) : std::nullopt;
        if (!own)
            return;
        m_children = path;
        if (own->empty())
            ::unsetenv("PYTHONPATH");
        else
            ::setenv("PYTHONPATH", own->c_str(), 1);
    }
    ~TargetPythonPath()
    {
        if (!m_children.empty())
            ::setenv("PYTHONPATH", m_children.c_str(), 1);
    }
    TargetPythonPath(const TargetPythonPath&) = delete;
    TargetPythonPath& operator=(const TargetPythonPath&) = delete;

private:
    std::string m_children; ///< the children's PYTHONPATH, to put back
};

} // namespace

void on_startup_failure(StartupFailureHandler handler)
{
    g_on_startup_failure = handler;
}

void preinitialize(const WorkerPlan& plan)
{
    // As python's main does it, from its command line and environment: -E, -I, -X dev, -X utf8,
    // PYTHONMALLOC, PYTHONDEVMODE, PYTHONUTF8 and the locale mean what they mean to python. The
    // memory allocator is chosen here, so whatever CPython allocates for the hooks (the audit hook,
    // the inittab entry) comes after it and is freed by the allocator that allocated it.
    PyPreConfig preconfig;
    PyPreConfig_InitPythonConfig(&preconfig);
    preconfig.parse_argv = 1;
    CommandLine command_line(plan);
    check_status(Py_PreInitializeFromBytesArgs(&preconfig, command_line.argc(), command_line.argv()));
}

namespace {

/// importscope started with descriptor 0 closed (<&-), and has had /dev/null there since: the
/// target starts as python would have, with sys.stdin and sys.__stdin__ None and descriptor 0
/// closed, for the next file it opens. The journal and channels opened before are above 2.
void close_standard_input()
{
    if (PySys_SetObject("stdin", Py_None) != 0 || PySys_SetObject("__stdin__", Py_None) != 0)
        throw capi::PythonError("cannot set sys.stdin to None");
    ::close(STDIN_FILENO);
}

} // namespace

Interpreter::Interpreter(const WorkerPlan& plan, const std::function<void()>& on_core_ready,
                         const std::function<void()>& on_main_ready)
{
    Config config;
    set_string(config, &config->program_name, plan.python_executable);
    // The command line python would have had, parsed by CPython itself: its options (-u, -X dev,
    // -W, -I ...) mean what they mean to python, and sys.argv and sys.orig_argv are python's.
    CommandLine command_line(plan);
    config->parse_argv = 1;
    check_status(PyConfig_SetBytesArgv(config.get(), command_line.argc(), command_line.argv()));

    // Another installation of this version: its stdlib files, not our frozen copies of them.
    if (plan.foreign_installation)
        capi::compat::use_stdlib_files(config.get());

    // The one private call of the embedding (the same on 3.10 to 3.13): initialization in two
    // phases, so that the hooks are in place after the core and before site and any .pth file.
    config->_init_main = 0;
    {
        const TargetPythonPath target_path(plan);
        check_status(Py_InitializeFromConfig(config.get()));
    }
    on_core_ready();
    check_status(_Py_InitializeMain());
    on_main_ready();
    if (plan.stdin_closed)
        close_standard_input();
}

Interpreter::~Interpreter()
{
    if (!m_finalized)
        Py_FinalizeEx();
}

int Interpreter::run_main()
{
    m_finalized = true; // Py_RunMain finalizes, whatever happens
    return Py_RunMain();
}

} // namespace importscope::embed
