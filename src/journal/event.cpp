#include "importscope/journal/event.hpp"

#include "importscope/util/json_writers.hpp"
#include "importscope/util/utf8.hpp"

#include <nlohmann/json.hpp>
#include <rapidjson/stringbuffer.h>

#include <stdexcept>
#include <type_traits>

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

/// The journal's writer: RapidJSON's, compact, into a buffer kept from one event to the next.
using LineWriter = json_writer::Compact<rapidjson::StringBuffer>;

/// Writes each event as one compact JSON object with sorted keys, straight into the line: this
/// runs inside the traced process on every recorded import, where a JSON tree per event would cost
/// more than the rest of the recording.
class Encoder {
public:
    explicit Encoder(LineWriter& writer) : m_json(writer) {}

    void operator()(const ProcessStart& e)
    {
        m_json.StartObject();
        key("argv");
        strings(e.argv);
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
        m_json.EndObject();
    }
    void operator()(const ExtensionLoad& e)
    {
        m_json.StartObject();
        if (e.identity)
            number("dev", e.identity->dev);
        text("ev", "ext");
        if (e.identity)
            number("ino", e.identity->ino);
        text("name", e.name);
        if (!e.exports_init) {
            key("no_init");
            m_json.Bool(true);
        }
        text("path", e.path);
        number("pid", e.pid);
        optional_text("realpath", e.realpath);
        number("seq", e.seq);
        stack("stack", e.stack);
        number("t", e.mono_ns);
        m_json.EndObject();
    }
    void operator()(const ImportBegin& e)
    {
        m_json.StartObject();
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
        optional_text("realpath", e.realpath);
        number("seq", e.seq);
        stack("stack", e.stack);
        if (e.stdlib) {
            key("stdlib");
            m_json.Bool(true);
        }
        number("t", e.mono_ns);
        m_json.EndObject();
    }
    void operator()(const ImportEnd& e)
    {
        m_json.StartObject();
        if (e.error)
            exception("error", *e.error);
        text("ev", "end");
        optional_text("existing", e.existing_module);
        number("id", e.id);
        pid_and_seq(e);
        number("t", e.mono_ns);
        if (!e.warnings.empty()) {
            key("warnings");
            strings(e.warnings);
        }
        m_json.EndObject();
    }
    void operator()(const UncaughtException& e)
    {
        m_json.StartObject();
        text("ev", "uncaught");
        exception("exception", e.exception);
        pid_and_seq(e);
        number("t", e.mono_ns);
        m_json.EndObject();
    }
    void operator()(const ProcessEnd& e)
    {
        m_json.StartObject();
        number("code", e.code);
        text("ev", "exit");
        text("how", e.how);
        pid_and_seq(e);
        number("t", e.mono_ns);
        number("wall_ns", e.wall_ns);
        m_json.EndObject();
    }
    void operator()(const AliasSeen& e)
    {
        m_json.StartObject();
        text("ev", "alias");
        text("file", e.file);
        text("key", e.key);
        text("module", e.module_name);
        pid_and_seq(e);
        stack("stack", e.stack);
        number("t", e.mono_ns);
        m_json.EndObject();
    }
    void operator()(const TypeOwners& e)
    {
        m_json.StartObject();
        text("ev", "type_owners");
        key("owners");
        m_json.StartArray();
        for (const auto& o : e.owners) {
                        m_json.StartObject();
            if (o.identity)
                number("dev", o.identity->dev);
            text("file", o.file);
            if (o.identity)
                number("ino", o.identity->ino);
            text("module", o.module);
            key("pybind11");
            m_json.Bool(o.pybind11);
            text("qualname", o.qualname);
            optional_text("realpath", o.realpath);
            m_json.EndObject();
        }
        m_json.EndArray();
        pid_and_seq(e);
        number("t", e.mono_ns);
        text("type", e.type_name);
        m_json.EndObject();
    }
    void operator()(const Installation& e)
    {
        m_json.StartObject();
        text("ev", "installation");
        text("name", e.name);
        text("origin", e.origin);
        pid_and_seq(e);
        if (!e.shadowed.empty()) {
            key("shadowed");
            strings(e.shadowed);
        }
        number("t", e.mono_ns);
        m_json.EndObject();
    }
    void operator()(const NoBuild& e)
    {
        m_json.StartObject();
        text("ev", "no_build");
        key("files");
        strings(e.files);
        text("name", e.name);
        pid_and_seq(e);
        stack("stack", e.stack);
        key("suffixes");
        strings(e.suffixes);
        number("t", e.mono_ns);
        m_json.EndObject();
    }
    void operator()(const Caught& e)
    {
        m_json.StartObject();
        text("ev", "caught");
        key("frame");
        whole_frame(e.frame);
        number("id", e.id);
        pid_and_seq(e);
        number("t", e.mono_ns);
        m_json.EndObject();
    }
    void operator()(const WorkerProcess& e)
    {
        m_json.StartObject();
        text("ev", "worker");
        text("name", e.name);
        pid_and_seq(e);
        number("t", e.mono_ns);
        optional_text("target", e.target);
        m_json.EndObject();
    }
    void operator()(const Note& e)
    {
        m_json.StartObject();
        text("ev", "note");
        pid_and_seq(e);
        number("t", e.mono_ns);
        text("text", e.text);
        m_json.EndObject();
    }
    void operator()(const ProgramStart& e)
    {
        m_json.StartObject();
        key("argv");
        strings(e.argv);
        if (!e.env.empty())
            text("env", e.env);
        text("ev", "program");
        text("executable", e.executable);
        pid_and_seq(e);
        number("t", e.mono_ns);
        text("via", e.via);
        m_json.EndObject();
    }

private:
    /// "pid" and "seq", which sort next to each other in every event that has a sequence number.
    template <typename E>
    void pid_and_seq(const E& e)
    {
        number("pid", e.pid);
        number("seq", e.seq);
    }
    void key(std::string_view name) { m_json.Key(name.data(), static_cast<rapidjson::SizeType>(name.size())); }
    void string(std::string_view value)
    {
        const std::string_view valid = valid_utf8(value, m_scratch);
        m_json.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
    }
    void text(std::string_view name, std::string_view value)
    {
        key(name);
        string(value);
    }
    /// A text that is left out when empty, as its reader takes a missing one to be.
    void optional_text(std::string_view name, std::string_view value)
    {
        if (!value.empty())
            text(name, value);
    }
    void strings(const std::vector<std::string>& values)
    {
        m_json.StartArray();
        for (const auto& value : values)
            string(value);
        m_json.EndArray();
    }
    template <typename Integer>
    void number(std::string_view name, Integer value)
    {
        key(name);
        if constexpr (std::is_signed_v<Integer>)
            m_json.Int64(value);
        else
            m_json.Uint64(value);
    }
    void exception(std::string_view name, const ExceptionInfo& e)
    {
        key(name);
        m_json.StartObject();
        text("message", e.message);
        text("traceback", e.traceback);
        text("type", e.type);
        m_json.EndObject();
    }
    void stack(std::string_view name, const std::vector<Frame>& frames)
    {
        key(name);
        m_json.StartArray();
        for (const auto& f : frames) {
            if (f.known)
                m_json.Uint(f.number);
            else
                whole_frame(f);
        }
        m_json.EndArray();
    }
    void whole_frame(const Frame& f)
    {
        m_json.StartObject();
        text("file", f.file);
        text("function", f.function);
        if (f.number != 0)
            number("id", f.number);
        number("line", f.line);
        text("module", f.module);
        m_json.EndObject();
    }

    LineWriter& m_json;
    std::string m_scratch; ///< a string's valid UTF-8, when it was not
};

} // namespace

void encode_to(std::string& line, const Event& event)
{
    // The buffer and the writer's stack are kept from one event to the next: an event costs no
    // allocation.
    thread_local rapidjson::StringBuffer buffer;
    thread_local LineWriter writer(buffer);
    buffer.Clear();
    writer.Reset(buffer);
    Encoder encoder(writer);
    std::visit(encoder, event);
    line.append(buffer.GetString(), buffer.GetSize());
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
