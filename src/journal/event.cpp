#include "importscope/journal/event.hpp"

#include "importscope/util/json_text.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace importscope::journal {

using nlohmann::json;

void to_json(json& j, const Frame& frame)
{
    j = json{{"file", frame.file}, {"line", frame.line}, {"function", frame.function}, {"module", frame.module}};
}

void to_json(json& j, const ExceptionInfo& exception)
{
    j = json{{"type", exception.type}, {"message", exception.message}, {"traceback", exception.traceback}};
}

namespace {

/// Writes each event as one compact JSON object with sorted keys, straight into the line: this
/// runs inside the traced process on every recorded import, where a JSON tree per event would cost
/// more than the rest of the recording.
class Encoder {
public:
    explicit Encoder(std::string& line) : m_json(line, JsonText::Layout::compact) {}

    void operator()(const ProcessStart& e)
    {
        m_json.begin_object();
        m_json.key("argv");
        m_json.strings(e.argv);
        text("cwd", e.cwd);
        text("ev", "process");
        text("executable", e.executable);
        number("format", e.format);
        number("pid", e.pid);
        number("ppid", e.ppid);
        text("python", e.python_version);
        text("start_method", e.start_method);
        number("t", e.mono_ns);
        number("wall_ns", e.wall_ns);
        m_json.end_object();
    }
    void operator()(const ExtensionLoad& e)
    {
        m_json.begin_object();
        if (e.identity)
            number("dev", e.identity->dev);
        text("ev", "ext");
        if (e.identity)
            number("ino", e.identity->ino);
        text("name", e.name);
        text("path", e.path);
        number("pid", e.pid);
        text("realpath", e.realpath);
        number("seq", e.seq);
        stack("stack", e.stack);
        number("t", e.mono_ns);
        m_json.end_object();
    }
    void operator()(const ImportBegin& e)
    {
        m_json.begin_object();
        if (e.identity)
            number("dev", e.identity->dev);
        text("ev", "begin");
        number("id", e.id);
        if (e.identity)
            number("ino", e.identity->ino);
        text("kind", e.kind);
        text("loader", e.loader);
        text("name", e.name);
        text("origin", e.origin);
        text("parent", e.parent);
        number("pid", e.pid);
        text("realpath", e.realpath);
        number("seq", e.seq);
        stack("stack", e.stack);
        number("t", e.mono_ns);
        m_json.end_object();
    }
    void operator()(const ImportEnd& e)
    {
        m_json.begin_object();
        if (e.error)
            exception("error", *e.error);
        text("ev", "end");
        number("id", e.id);
        pid_and_seq(e);
        number("t", e.mono_ns);
        if (!e.warnings.empty()) {
            m_json.key("warnings");
            m_json.strings(e.warnings);
        }
        m_json.end_object();
    }
    void operator()(const UncaughtException& e)
    {
        m_json.begin_object();
        text("ev", "uncaught");
        exception("exception", e.exception);
        pid_and_seq(e);
        number("t", e.mono_ns);
        m_json.end_object();
    }
    void operator()(const ProcessEnd& e)
    {
        m_json.begin_object();
        number("code", e.code);
        text("ev", "exit");
        text("how", e.how);
        pid_and_seq(e);
        number("t", e.mono_ns);
        number("wall_ns", e.wall_ns);
        m_json.end_object();
    }
    void operator()(const AliasSeen& e)
    {
        m_json.begin_object();
        text("ev", "alias");
        text("file", e.file);
        text("key", e.key);
        text("module", e.module_name);
        pid_and_seq(e);
        stack("stack", e.stack);
        number("t", e.mono_ns);
        m_json.end_object();
    }
    void operator()(const TypeOwners& e)
    {
        m_json.begin_object();
        text("ev", "type_owners");
        m_json.key("owners");
        m_json.begin_array();
        for (const auto& o : e.owners) {
            m_json.item();
            m_json.begin_object();
            if (o.identity)
                number("dev", o.identity->dev);
            text("file", o.file);
            if (o.identity)
                number("ino", o.identity->ino);
            text("module", o.module);
            m_json.key("pybind11");
            m_json.boolean(o.pybind11);
            text("qualname", o.qualname);
            text("realpath", o.realpath);
            m_json.end_object();
        }
        m_json.end_array();
        pid_and_seq(e);
        number("t", e.mono_ns);
        text("type", e.type_name);
        m_json.end_object();
    }
    void operator()(const Installation& e)
    {
        m_json.begin_object();
        text("ev", "installation");
        text("name", e.name);
        text("origin", e.origin);
        pid_and_seq(e);
        number("t", e.mono_ns);
        m_json.end_object();
    }
    void operator()(const Note& e)
    {
        m_json.begin_object();
        text("ev", "note");
        pid_and_seq(e);
        number("t", e.mono_ns);
        text("text", e.text);
        m_json.end_object();
    }
    void operator()(const ProgramStart& e)
    {
        m_json.begin_object();
        m_json.key("argv");
        m_json.strings(e.argv);
        if (!e.env.empty())
            text("env", e.env);
        text("ev", "program");
        text("executable", e.executable);
        pid_and_seq(e);
        number("t", e.mono_ns);
        text("via", e.via);
        m_json.end_object();
    }

private:
    /// "pid" and "seq", which sort next to each other in every event that has a sequence number.
    template <typename E>
    void pid_and_seq(const E& e)
    {
        number("pid", e.pid);
        number("seq", e.seq);
    }
    void text(std::string_view key, std::string_view value)
    {
        m_json.key(key);
        m_json.string(value);
    }
    template <typename Integer>
    void number(std::string_view key, Integer value)
    {
        m_json.key(key);
        m_json.integer(value);
    }
    void exception(std::string_view key, const ExceptionInfo& e)
    {
        m_json.key(key);
        m_json.begin_object();
        text("message", e.message);
        text("traceback", e.traceback);
        text("type", e.type);
        m_json.end_object();
    }
    void stack(std::string_view key, const std::vector<Frame>& frames)
    {
        m_json.key(key);
        m_json.begin_array();
        for (const auto& f : frames) {
            m_json.item();
            if (f.known) {
                m_json.integer(f.number);
                continue;
            }
            m_json.begin_object();
            text("file", f.file);
            text("function", f.function);
            if (f.number != 0)
                number("id", f.number);
            number("line", f.line);
            text("module", f.module);
            m_json.end_object();
        }
        m_json.end_array();
    }

    JsonText m_json;
};

} // namespace

void encode_to(std::string& line, const Event& event)
{
    Encoder encoder(line);
    std::visit(encoder, event);
    line.push_back('\n');
}

std::string encode(const Event& event)
{
    std::string line;
    line.reserve(512);
    encode_to(line, event);
    return line;
}

} // namespace importscope::journal
