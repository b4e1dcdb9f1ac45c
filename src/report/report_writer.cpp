// The report's one serializer, RapidJSON's writers, streamed to the file a megabyte or so at a time.
// The parts of a report that stay small (the run, processes, findings, environment) come as a JSON
// tree (report_json.cpp) and are written indented by two; the module records, one per recorded
// import, are written one at a time straight from the model, each compact on a line of its own,
// and never become a tree.

#include "importscope/report/redact_paths.hpp"
#include "importscope/report/report.hpp"
#include "importscope/util/json_writers.hpp"
#include "importscope/util/utf8.hpp"

#include <rapidjson/stringbuffer.h>

#include <array>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace importscope::report {

namespace {

/// One of RapidJSON's writers, and one thing more: a value whose text is made already (a module
/// record's, a numbered frame's) copied in whole, as RawValue() would copy it byte by byte.
class PrettyWriter : public json_writer::Pretty<rapidjson::StringBuffer> {
public:
    using json_writer::Pretty<rapidjson::StringBuffer>::FastStrings;

    void copied(std::string_view text)
    {
        PrettyPrefix(rapidjson::kObjectType);
        std::memcpy(os_->Push(text.size()), text.data(), text.size());
    }

    /// Makes way for an item that another writer puts in this one's buffer next.
    void item_follows() { PrettyPrefix(rapidjson::kObjectType); }
};

class CompactWriter : public json_writer::Compact<rapidjson::StringBuffer> {
public:
    using json_writer::Compact<rapidjson::StringBuffer>::FastStrings;

    void copied(std::string_view text)
    {
        Prefix(rapidjson::kObjectType);
        std::memcpy(os_->Push(text.size()), text.data(), text.size());
    }
};

/// A writer, its buffer, and what each string passes through: valid UTF-8 (invalid bytes
/// replaced) and --redact-paths when it was given.
template <typename Writer>
class JsonStream {
public:
    JsonStream(const TextSink& sink, const PathRedaction* redaction) : m_writer(m_buffer), m_sink(sink), m_redaction(redaction)
    {
        if constexpr (std::is_same_v<Writer, PrettyWriter>)
            m_writer.SetIndent(' ', 2);
    }

    Writer& operator*() { return m_writer; }
    Writer* operator->() { return &m_writer; }

    /// One of the report's own keys (a name in this file).
    void key(std::string_view name) { m_writer.LiteralKey(name); }

    /// A key that a tree holds: data (a variable's name; any key of a report read back).
    void data_key(std::string_view name)
    {
        const std::string_view valid = valid_utf8(name, m_scratch);
        m_writer.Key(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
    }

    /// A string of the model's: through --redact-paths.
    void string(std::string_view text)
    {
        std::string_view valid = valid_utf8(text, m_scratch);
        if (m_redaction) {
            if (valid.data() != m_scratch.data())
                m_scratch.assign(valid);
            m_redaction->apply(m_scratch);
            valid = m_scratch;
        }
        m_writer.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
    }

    /// A string of a tree, which is redacted already.
    void plain(std::string_view text)
    {
        const std::string_view valid = valid_utf8(text, m_scratch);
        m_writer.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
    }

    void number(double value)
    {
        if (std::isfinite(value))
            m_writer.Double(value);
        else
            m_writer.Null(); // as JSON has no NaN
    }

    /// Any JSON tree, keys in its own (sorted) order.
    void value(const nlohmann::json& v)
    {
        switch (v.type()) {
        case nlohmann::json::value_t::boolean:
            m_writer.Bool(v.get<bool>());
            break;
        case nlohmann::json::value_t::number_integer:
            m_writer.Int64(v.get<std::int64_t>());
            break;
        case nlohmann::json::value_t::number_unsigned:
            m_writer.Uint64(v.get<std::uint64_t>());
            break;
        case nlohmann::json::value_t::number_float:
            number(v.get<double>());
            break;
        case nlohmann::json::value_t::string:
            plain(v.get_ref<const std::string&>());
            break;
        case nlohmann::json::value_t::array:
            m_writer.StartArray();
            for (const auto& item : v)
                value(item);
            m_writer.EndArray();
            break;
        case nlohmann::json::value_t::object:
            m_writer.StartObject();
            for (const auto& [name, item] : v.items()) {
                data_key(name);
                value(item);
            }
            m_writer.EndObject();
            break;
        default: // null, and what a parsed report never holds (binary, discarded)
            m_writer.Null();
        }
    }

    /// Starts again on an empty buffer, at the top.
    void restart()
    {
        m_buffer.Clear();
        m_writer.Reset(m_buffer);
    }

    /// Writes one value at the end of `other`'s buffer, from the top, until restart().
    template <typename OtherWriter>
    void write_into(JsonStream<OtherWriter>& other)
    {
        m_writer.Reset(other.m_buffer);
    }

    /// What is written and not yet handed to the sink.
    std::string_view text() const { return {m_buffer.GetString(), m_buffer.GetSize()}; }

    /// Hands what is written so far to the sink once it is big enough, or at the end.
    void flush(bool at_end = false)
    {
        if (!at_end && m_buffer.GetSize() < k_piece)
            return;
        m_sink(std::string_view(m_buffer.GetString(), m_buffer.GetSize()));
        m_buffer.Clear();
    }

private:
    template <typename>
    friend class JsonStream;
    static constexpr std::size_t k_piece = std::size_t{1} << 20;

    rapidjson::StringBuffer m_buffer;
    Writer m_writer;
    const TextSink& m_sink;
    const PathRedaction* m_redaction;
    std::string m_scratch;
};

using TreeStream = JsonStream<PrettyWriter>;
using RecordStream = JsonStream<CompactWriter>;

void write_frame(RecordStream& j, const journal::Frame& frame)
{
    j->StartObject();
    j.key("file");
    j.string(frame.file);
    j.key("function");
    j.string(frame.function);
    j.key("line");
    j->Int(frame.line);
    j.key("module");
    j.string(frame.module);
    j->EndObject();
}

void write_error(RecordStream& j, const std::optional<journal::ExceptionInfo>& error)
{
    if (!error) {
        j->Null();
        return;
    }
    j->StartObject();
    j.key("message");
    j.string(error->message);
    j.key("traceback");
    j.string(error->traceback);
    j.key("type");
    j.string(error->type);
    j->EndObject();
}

void write_identity(RecordStream& j, const std::optional<journal::FileIdentity>& identity)
{
    if (!identity) {
        j->Null();
        return;
    }
    j->StartObject();
    j.key("dev");
    j->Uint64(identity->dev);
    j.key("ino");
    j->Uint64(identity->ino);
    j->EndObject();
}

/// The text of each numbered frame of a journal, made once and copied into every record that holds
/// it: the modules of a deep package all repeat the same outer frames, and a report writes each
/// module's whole stack.
class FrameTexts {
public:
    explicit FrameTexts(const PathRedaction* redaction) : m_scratch(m_unused, redaction) {}
    FrameTexts(const FrameTexts&) = delete;
    FrameTexts& operator=(const FrameTexts&) = delete;

    /// Writes `frame` in `j`: copied when its journal numbered it, else written.
    void write(RecordStream& j, const std::string& journal, const journal::Frame& frame)
    {
        if (frame.number == 0 || frame.number > k_most) {
            write_frame(j, frame);
            return;
        }
        if (!m_journal || *m_journal != journal) {
            m_journal = &journal;
            m_texts = &m_by_journal[journal];
        }
        if (m_texts->size() <= frame.number)
            m_texts->resize(std::size_t{frame.number} + 1);
        std::string& text = (*m_texts)[frame.number];
        if (text.empty()) {
            m_scratch.restart();
            write_frame(m_scratch, frame);
            text = m_scratch.text();
        }
        j->copied(text);
    }

private:
    static constexpr std::uint32_t k_most = 1 << 20; ///< numbers beyond are not kept (a damaged journal)

    const TextSink m_unused = [](std::string_view) {};
    RecordStream m_scratch; ///< where a frame's text is made, its buffer kept from one to the next
    std::unordered_map<std::string, std::vector<std::string>> m_by_journal;
    const std::string* m_journal = nullptr; ///< the journal of the record before, and its texts
    std::vector<std::string>* m_texts = nullptr;
};

/// One module record (docs/report-format.md), keys sorted.
void write_module(RecordStream& j, FrameTexts& frames, const analysis::ModuleRecord& r)
{
    j->StartObject();
    j.key("call_site");
    if (const journal::Frame* site = r.call_site())
        frames.write(j, r.journal, *site);
    else
        j->Null();
    if (r.caught_at) {
        j.key("caught_at");
        write_frame(j, *r.caught_at);
    }
    j.key("duration_ms");
    if (r.duration_ms)
        j.number(*r.duration_ms);
    else
        j->Null();
    j.key("error");
    write_error(j, r.error);
    if (!r.existing_module.empty()) {
        j.key("existing_module");
        j.string(r.existing_module);
    }
    j.key("file_identity");
    write_identity(j, r.identity);
    j.key("initialized_extension");
    j->Bool(r.initialized_extension);
    j.key("kind");
    j.string(r.kind);
    if (r.late) {
        j.key("late");
        j->Bool(true);
    }
    j.key("loader");
    j.string(r.loader);
    j.key("name");
    j.string(r.name);
    j.key("order");
    j->Uint64(r.order);
    j.key("origin");
    j.string(r.origin);
    j.key("parent");
    j.string(r.parent);
    j.key("pid");
    j->Int(r.pid);
    j.key("realpath");
    j.string(r.realpath);
    j.key("stack");
    j->StartArray();
    for (const auto& frame : r.stack)
        frames.write(j, r.journal, frame);
    j->EndArray();
    j.key("status");
    j.string(analysis::to_string(r.status));
    j.key("via_finder");
    j->Bool(r.via_finder);
    if (!r.warnings.empty()) {
        j.key("warnings");
        j->StartArray();
        for (const auto& warning : r.warnings)
            j.string(warning);
        j->EndArray();
    }
    j->EndObject();
}

/// The report's "modules": each record written compact by `write_record` as an item, on a line of
/// its own, straight into the report's buffer.
template <typename Records, typename WriteRecord>
void write_modules(TreeStream& j, const Records& records, const PathRedaction* redaction, WriteRecord&& write_record)
{
    const TextSink unused = [](std::string_view) {};
    RecordStream record(unused, redaction);
    j.key("modules");
    j->StartArray();
    for (const auto& r : records) {
        j->item_follows();
        record.write_into(j);
        write_record(record, r);
        j.flush();
    }
    j->EndArray();
}

/// A report's top-level object: the keys of `report`, in their (sorted) order, with "modules" at
/// its place, written by `modules`.
template <typename WriteModules>
void write_top(TreeStream& j, const nlohmann::json& report, WriteModules&& modules)
{
    j->StartObject();
    bool modules_written = false;
    for (const auto& [name, value] : report.items()) {
        if (name == "modules")
            continue;
        if (!modules_written && name > "modules") {
            modules();
            modules_written = true;
        }
        j.data_key(name);
        j.value(value); // the tree is redacted already
    }
    if (!modules_written)
        modules();
    j->EndObject();
    j.flush(true);
}

} // namespace

void write_report(const nlohmann::json& report, const analysis::RunModel& model, const PathRedaction* redaction,
                  const TextSink& sink)
{
    if (!report.is_object() || report.contains("modules"))
        throw std::logic_error("write_report needs build_report's tree, which leaves the module records out");
    TreeStream j(sink, redaction);
    FrameTexts frames(redaction);
    write_top(j, report, [&] {
        write_modules(j, model.modules, redaction, [&](RecordStream& record, const analysis::ModuleRecord& r) {
            write_module(record, frames, r);
        });
    });
    sink("\n");
}

std::string report_text(const nlohmann::json& report, const analysis::RunModel& model, const PathRedaction* redaction)
{
    std::string text;
    write_report(report, model, redaction, [&](std::string_view piece) { text += piece; });
    return text;
}

std::string pretty_text(const nlohmann::json& value)
{
    std::string text;
    const TextSink sink = [&](std::string_view piece) { text += piece; };
    TreeStream j(sink, nullptr);
    const auto modules = value.is_object() ? value.find("modules") : value.end();
    if (modules != value.end() && modules->is_array())
        write_top(j, value, [&] {
            write_modules(j, *modules, nullptr, [](RecordStream& record, const nlohmann::json& r) { record.value(r); });
        });
    else {
        j.value(value);
        j.flush(true);
    }
    text += '\n';
    return text;
}

} // namespace importscope::report
