#include "embed/interpreter.hpp"

#include "embed/python_error.hpp"
#include "importscope/util/error.hpp"

#include <Python.h>

#include <fmt/format.h>

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

/// A failed PyStatus ends the worker the way python ends on a failed start-up.
void check_status(PyStatus status)
{
    if (PyStatus_Exception(status))
        Py_ExitStatusException(status);
}

void set_string(Config& config, wchar_t** field, const std::string& value)
{
    check_status(PyConfig_SetBytesString(config.get(), field, value.c_str()));
}

void set_list(Config& config, PyWideStringList* list, const std::vector<std::string>& values)
{
    std::vector<char*> pointers;
    pointers.reserve(values.size());
    for (const auto& v : values)
        pointers.push_back(const_cast<char*>(v.c_str()));
    check_status(PyConfig_SetBytesArgv(config.get(), static_cast<Py_ssize_t>(pointers.size()), pointers.data()));
    if (list != &config->argv) {
        // PyConfig_SetBytesArgv fills argv; move it where it was asked for.
        check_status(PyConfig_SetWideStringList(config.get(), list, config->argv.length, config->argv.items));
    }
}

} // namespace

std::vector<std::string> target_argv(const Target& target)
{
    std::vector<std::string> argv;
    switch (target.kind) {
    case TargetKind::script:
        argv.push_back(target.value);
        break;
    case TargetKind::module:
        argv.push_back("-m");
        break; // runpy puts the module's path here
    case TargetKind::command:
        argv.push_back("-c");
        break;
    }
    argv.insert(argv.end(), target.args.begin(), target.args.end());
    return argv;
}

Interpreter::Interpreter(const WorkerPlan& plan, const std::function<void()>& on_core_ready,
                         const std::function<void()>& on_main_ready)
{
    Config config;
    config->parse_argv = 0; // the target's arguments are its own, never python's options
    set_string(config, &config->program_name, plan.python_executable);

    // orig_argv as python would have seen it.
    std::vector<std::string> orig = {plan.python_executable};
    if (plan.target.kind == TargetKind::module)
        orig.insert(orig.end(), {"-m", plan.target.value});
    else if (plan.target.kind == TargetKind::command)
        orig.insert(orig.end(), {"-c", plan.target.value});
    else
        orig.push_back(plan.target.value);
    orig.insert(orig.end(), plan.target.args.begin(), plan.target.args.end());
    set_list(config, &config->orig_argv, orig);
    set_list(config, &config->argv, target_argv(plan.target));

    switch (plan.target.kind) {
    case TargetKind::script:
        set_string(config, &config->run_filename, plan.target.value);
        break;
    case TargetKind::module:
        set_string(config, &config->run_module, plan.target.value);
        break;
    case TargetKind::command:
        set_string(config, &config->run_command, plan.target.value + "\n");
        break;
    }

    // Another installation of this version: its stdlib files, not our frozen copies of them.
    if (plan.foreign_installation)
        config->use_frozen_modules = 0;

    config->_init_main = 0;
    check_status(Py_InitializeFromConfig(config.get()));
    on_core_ready();
    check_status(_Py_InitializeMain());
    on_main_ready();
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
