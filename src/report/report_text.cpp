// The report file's text with the module records written straight from the model: the one part of
// a report that grows with the target (a record per recorded import) never becomes a JSON tree.

#include "importscope/report/redact_paths.hpp"
#include "importscope/report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace importscope::report {

namespace {

/// Appends JSON text laid out exactly as nlohmann's dump(2): keys in the order given (the callers
/// give them sorted, as nlohmann's objects hold them), two spaces a level.
class JsonText {
public:
    /// Continues text that has `open` brackets open already, the innermost one still empty.
    JsonText(std::string& out, const PathRedaction* redaction, std::size_t open)
        : m_out(out), m_redaction(redaction), m_first(open, false)
    {
        if (!m_first.empty())
            m_first.back() = true;
    }

    void begin_object() { begin('{'); }
    void end_object() { end('}'); }
    void begin_array() { begin('['); }
    void end_array() { end(']'); }
    void empty_array() { m_out += "[]"; }

    /// Starts a member: a comma and newline before all but the first, then the indented key.
    void key(std::string_view name)
    {
        item();
        fmt::format_to(std::back_inserter(m_out), "\"{}\": ", name);
    }
    /// Starts an array element.
    void item()
    {
        m_out += m_first.back() ? "\n" : ",\n";
        m_first.back() = false;
        m_out.append(2 * m_first.size(), ' ');
    }

    void string(const std::string& text)
    {
        if (m_redaction) {
            std::string redacted = text;
            m_redaction->apply(redacted);
            append_escaped(redacted);
        } else {
            append_escaped(text);
        }
    }
    void null() { m_out += "null"; }
    void boolean(bool value) { m_out += value ? "true" : "false"; }
    template <typename Integer>
    void integer(Integer value)
    {
        fmt::format_to(std::back_inserter(m_out), "{}", value);
    }
    void number(double value) { m_out += nlohmann::json(value).dump(); }

private:
    void begin(char bracket)
    {
        m_out += bracket;
        m_first.push_back(true);
    }
    void end(char bracket)
    {
        const bool empty = m_first.back();
        m_first.pop_back();
        if (!empty) {
            m_out += '\n';
            m_out.append(2 * m_first.size(), ' ');
        }
        m_out += bracket;
    }
    /// nlohmann's escaping, invalid UTF-8 replaced; the common case (printable ASCII) copied as is.
    void append_escaped(const std::string& text)
    {
        const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
            return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x80 && c != '"' &&
                   c != '\\';
        });
        if (plain) {
            m_out += '"';
            m_out += text;
            m_out += '"';
        } else {
            m_out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
    }

    std::string& m_out;
    const PathRedaction* m_redaction;
    std::vector<bool> m_first; ///< per open bracket: nothing written inside it yet
};

void write_frame(JsonText& j, const journal::Frame& frame)
{
    j.begin_object();
    j.key("file");
    j.string(frame.file);
    j.key("function");
    j.string(frame.function);
    j.key("line");
    j.integer(frame.line);
    j.key("module");
    j.string(frame.module);
    j.end_object();
}

/// One record, with the keys and values of module_json() in report_json.cpp.
void write_module(JsonText& j, const analysis::ModuleRecord& r)
{
    j.begin_object();
    j.key("call_site");
    if (const journal::Frame* site = r.call_site())
        write_frame(j, *site);
    else
        j.null();
    j.key("duration_ms");
    if (r.duration_ms)
        j.number(*r.duration_ms);
    else
        j.null();
    j.key("error");
    if (r.error) {
        j.begin_object();
        j.key("message");
        j.string(r.error->message);
        j.key("traceback");
        j.string(r.error->traceback);
        j.key("type");
        j.string(r.error->type);
        j.end_object();
    } else {
        j.null();
    }
    j.key("file_identity");
    if (r.identity) {
        j.begin_object();
        j.key("dev");
        j.integer(r.identity->dev);
        j.key("ino");
        j.integer(r.identity->ino);
        j.end_object();
    } else {
        j.null();
    }
    j.key("initialized_extension");
    j.boolean(r.initialized_extension);
    j.key("kind");
    j.string(r.kind);
    j.key("loader");
    j.string(r.loader);
    j.key("name");
    j.string(r.name);
    j.key("order");
    j.integer(r.order);
    j.key("origin");
    j.string(r.origin);
    j.key("parent");
    j.string(r.parent);
    j.key("pid");
    j.integer(r.pid);
    j.key("realpath");
    j.string(r.realpath);
    j.key("stack");
    if (r.stack.empty()) {
        j.empty_array();
    } else {
        j.begin_array();
        for (const auto& frame : r.stack) {
            j.item();
            write_frame(j, frame);
        }
        j.end_array();
    }
    j.key("status");
    j.string(analysis::to_string(r.status));
    j.key("via_finder");
    j.boolean(r.via_finder);
    j.end_object();
}

} // namespace

std::string dump_report(const nlohmann::json& report, const analysis::RunModel& model, const PathRedaction* redaction)
{
    std::string head = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    // Only the report's own keys stand two spaces in, so this is its "modules", not a nested one.
    constexpr std::string_view k_slot = "\n  \"modules\": []";
    const std::size_t slot = head.find(k_slot);
    if (slot == std::string::npos || !report.at("modules").empty())
        throw std::logic_error("dump_report needs a report built with ModuleRecords::deferred");
    const std::size_t rest = slot + k_slot.size();
    if (model.modules.empty())
        return head + "\n";

    std::string out;
    out.reserve(head.size() + model.modules.size() * 1024);
    out.append(head, 0, rest - 1); // up to and including the '['
    JsonText j(out, redaction, 2); // inside the report's '{' and the modules' '['
    for (const auto& r : model.modules) {
        j.item();
        write_module(j, r);
    }
    j.end_array();
    out.append(head, rest, std::string::npos);
    out += '\n';
    return out;
}

} // namespace importscope::report
