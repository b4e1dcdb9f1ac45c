#include "importscope/journal/event.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace importscope::journal {

using nlohmann::json;

void to_json(json& j, const Frame& frame)
{
    j = json{{"file", frame.file}, {"line", frame.line}, {"function", frame.function}, {"module", frame.module}};
}

void from_json(const json& j, Frame& frame)
{
    j.at("file").get_to(frame.file);
    j.at("line").get_to(frame.line);
    frame.function = j.value("function", "");
    frame.module = j.value("module", "");
}

void to_json(json& j, const ExceptionInfo& exception)
{
    j = json{{"type", exception.type}, {"message", exception.message}, {"traceback", exception.traceback}};
}

void from_json(const json& j, ExceptionInfo& exception)
{
    j.at("type").get_to(exception.type);
    j.at("message").get_to(exception.message);
    exception.traceback = j.value("traceback", "");
}

namespace {

void put_identity(json& j, const std::optional<FileIdentity>& identity)
{
    if (identity) {
        j["dev"] = identity->dev;
        j["ino"] = identity->ino;
    }
}

std::optional<FileIdentity> get_identity(const json& j)
{
    if (!j.contains("dev") || !j.contains("ino"))
        return std::nullopt;
    return FileIdentity{j.at("dev").get<std::uint64_t>(), j.at("ino").get<std::uint64_t>()};
}

} // namespace

void to_json(json& j, const TypeOwner& o)
{
    j = json{{"module", o.module},
             {"file", o.file},
             {"realpath", o.realpath},
             {"qualname", o.qualname},
             {"pybind11", o.pybind11}};
    put_identity(j, o.identity);
}

void from_json(const json& j, TypeOwner& o)
{
    j.at("module").get_to(o.module);
    o.file = j.value("file", "");
    o.realpath = j.value("realpath", "");
    o.qualname = j.value("qualname", "");
    o.pybind11 = j.value("pybind11", false);
    o.identity = get_identity(j);
}

namespace {

struct Encoder {
    json operator()(const ProcessStart& e) const
    {
        return json{{"ev", "process"},
                    {"format", e.format},
                    {"pid", e.pid},
                    {"ppid", e.ppid},
                    {"argv", e.argv},
                    {"executable", e.executable},
                    {"python", e.python_version},
                    {"cwd", e.cwd},
                    {"start_method", e.start_method},
                    {"wall_ns", e.wall_ns},
                    {"t", e.mono_ns}};
    }
    json operator()(const ExtensionLoad& e) const
    {
        json j{{"ev", "ext"},    {"pid", e.pid},   {"seq", e.seq},           {"t", e.mono_ns},
               {"name", e.name}, {"path", e.path}, {"realpath", e.realpath}, {"stack", e.stack}};
        put_identity(j, e.identity);
        return j;
    }
    json operator()(const ImportBegin& e) const
    {
        json j{{"ev", "begin"},          {"pid", e.pid},       {"seq", e.seq},       {"id", e.id},
               {"t", e.mono_ns},         {"name", e.name},     {"kind", e.kind},     {"origin", e.origin},
               {"realpath", e.realpath}, {"loader", e.loader}, {"parent", e.parent}, {"stack", e.stack}};
        put_identity(j, e.identity);
        return j;
    }
    json operator()(const ImportEnd& e) const
    {
        json j{{"ev", "end"}, {"pid", e.pid}, {"seq", e.seq}, {"id", e.id}, {"t", e.mono_ns}};
        if (e.error)
            j["error"] = *e.error;
        return j;
    }
    json operator()(const UncaughtException& e) const
    {
        return json{{"ev", "uncaught"}, {"pid", e.pid}, {"seq", e.seq}, {"t", e.mono_ns}, {"exception", e.exception}};
    }
    json operator()(const ProcessEnd& e) const
    {
        return json{{"ev", "exit"},         {"pid", e.pid}, {"seq", e.seq},  {"t", e.mono_ns},
                    {"wall_ns", e.wall_ns}, {"how", e.how}, {"code", e.code}};
    }
    json operator()(const AliasSeen& e) const
    {
        return json{{"ev", "alias"},           {"pid", e.pid},   {"seq", e.seq},    {"t", e.mono_ns}, {"key", e.key},
                    {"module", e.module_name}, {"file", e.file}, {"stack", e.stack}};
    }
    json operator()(const TypeOwners& e) const
    {
        return json{{"ev", "type_owners"}, {"pid", e.pid},        {"seq", e.seq},
                    {"t", e.mono_ns},      {"type", e.type_name}, {"owners", e.owners}};
    }
    json operator()(const Installation& e) const
    {
        return json{{"ev", "installation"}, {"pid", e.pid},   {"seq", e.seq},
                    {"t", e.mono_ns},       {"name", e.name}, {"origin", e.origin}};
    }
    json operator()(const Note& e) const
    {
        return json{{"ev", "note"}, {"pid", e.pid}, {"seq", e.seq}, {"t", e.mono_ns}, {"text", e.text}};
    }
    json operator()(const ProgramStart& e) const
    {
        return json{{"ev", "program"}, {"pid", e.pid}, {"seq", e.seq},
                    {"t", e.mono_ns},  {"via", e.via}, {"executable", e.executable},
                    {"argv", e.argv}};
    }
};

/// The fields every event but the process start has.
template <typename E>
E stamped(const json& j)
{
    E e;
    j.at("pid").get_to(e.pid);
    j.at("seq").get_to(e.seq);
    j.at("t").get_to(e.mono_ns);
    return e;
}

Event decode_object(const json& j)
{
    const auto tag = j.at("ev").get<std::string>();
    if (tag == "process") {
        ProcessStart e;
        j.at("format").get_to(e.format);
        if (e.format != k_format_version)
            throw std::invalid_argument("journal format " + std::to_string(e.format) + " is not supported");
        j.at("pid").get_to(e.pid);
        j.at("ppid").get_to(e.ppid);
        j.at("argv").get_to(e.argv);
        j.at("executable").get_to(e.executable);
        j.at("python").get_to(e.python_version);
        j.at("cwd").get_to(e.cwd);
        j.at("start_method").get_to(e.start_method);
        j.at("wall_ns").get_to(e.wall_ns);
        j.at("t").get_to(e.mono_ns);
        return e;
    }
    if (tag == "ext") {
        auto e = stamped<ExtensionLoad>(j);
        j.at("name").get_to(e.name);
        j.at("path").get_to(e.path);
        e.realpath = j.value("realpath", "");
        e.identity = get_identity(j);
        e.stack = j.value("stack", std::vector<Frame>{});
        return e;
    }
    if (tag == "begin") {
        ImportBegin e;
        j.at("pid").get_to(e.pid);
        j.at("seq").get_to(e.seq);
        j.at("id").get_to(e.id);
        j.at("t").get_to(e.mono_ns);
        j.at("name").get_to(e.name);
        j.at("kind").get_to(e.kind);
        e.origin = j.value("origin", "");
        e.realpath = j.value("realpath", "");
        e.loader = j.value("loader", "");
        e.parent = j.value("parent", "");
        e.identity = get_identity(j);
        e.stack = j.value("stack", std::vector<Frame>{});
        return e;
    }
    if (tag == "end") {
        ImportEnd e;
        j.at("pid").get_to(e.pid);
        j.at("seq").get_to(e.seq);
        j.at("id").get_to(e.id);
        j.at("t").get_to(e.mono_ns);
        if (j.contains("error"))
            e.error = j.at("error").get<ExceptionInfo>();
        return e;
    }
    if (tag == "uncaught") {
        auto e = stamped<UncaughtException>(j);
        j.at("exception").get_to(e.exception);
        return e;
    }
    if (tag == "exit") {
        auto e = stamped<ProcessEnd>(j);
        j.at("wall_ns").get_to(e.wall_ns);
        j.at("how").get_to(e.how);
        j.at("code").get_to(e.code);
        return e;
    }
    if (tag == "program") {
        auto e = stamped<ProgramStart>(j);
        j.at("via").get_to(e.via);
        e.executable = j.value("executable", "");
        j.at("argv").get_to(e.argv);
        return e;
    }
    if (tag == "alias") {
        auto e = stamped<AliasSeen>(j);
        j.at("key").get_to(e.key);
        j.at("module").get_to(e.module_name);
        e.file = j.value("file", "");
        e.stack = j.value("stack", std::vector<Frame>{});
        return e;
    }
    if (tag == "type_owners") {
        auto e = stamped<TypeOwners>(j);
        j.at("type").get_to(e.type_name);
        j.at("owners").get_to(e.owners);
        return e;
    }
    if (tag == "installation") {
        auto e = stamped<Installation>(j);
        j.at("name").get_to(e.name);
        e.origin = j.value("origin", "");
        return e;
    }
    if (tag == "note") {
        auto e = stamped<Note>(j);
        j.at("text").get_to(e.text);
        return e;
    }
    throw std::invalid_argument("unknown event \"" + tag + "\"");
}

} // namespace

std::string encode(const Event& event)
{
    std::string line = std::visit(Encoder{}, event).dump(-1, ' ', false, json::error_handler_t::replace);
    line.push_back('\n');
    return line;
}

Event decode(std::string_view line)
{
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded())
        throw std::invalid_argument("not a JSON object");
    if (!j.is_object())
        throw std::invalid_argument("not a JSON object");
    try {
        return decode_object(j);
    } catch (const json::exception& e) {
        throw std::invalid_argument(e.what());
    }
}

} // namespace importscope::journal
