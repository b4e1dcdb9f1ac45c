// The report's one serializer, util/json_writer.hpp's writer, streamed to the file a quarter of a megabyte at a time.
// The parts of a report that stay small (the run, processes, findings, environment) come as a
// Document (report_json.cpp), made a JSON tree once here, whose keys nlohmann keeps sorted, and are
// written indented by two; the module records, one per recorded
// import, and the frames their stacks name, are written one at a time straight from the model,
// each compact on a line of its own, and never become a tree.

#include "importscope/report/redact_paths.hpp"
#include "importscope/util/redact.hpp"
#include "importscope/report/report.hpp"
#include "importscope/util/json_writer.hpp"
#include "importscope/util/utf8.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <unordered_map>
#include <vector>

namespace importscope::report {

namespace {

/// The leading parts of the model's strings that is_plain_and_clear passed lately: a path's
/// directory, through its last '/'. The records of a run come from a few directories at a time,
/// so most paths are screened from their last '/' on. That is the screen of the whole: no
/// secret's shape reads past the byte after its word, and a '/' ends every word.
class CleanPrefixes {
public:
    /// The part of `text` that this may hold: empty for a text without a '/' (a module's name,
    /// seen once each, which would push the directories out).
    static std::string_view prefix_of(std::string_view text)
    {
        const void* slash = memrchr(text.data(), '/', text.size());
        return slash ? text.substr(0, static_cast<const char*>(slash) - text.data() + 1) : std::string_view();
    }

    /// Whether `prefix` is held; a prefix found is kept over the next add()s.
    bool holds(std::string_view prefix)
    {
        if (prefix.size() < k_shortest)
            return false;
        for (Slot& slot : m_slots)
            if (slot.text == prefix) {
                slot.used = true;
                return true;
            }
        return false;
    }

    /// Keeps `prefix`, which is_plain_and_clear passed, when it is long enough, in place of one
    /// not found since it was last passed over (a clock): the loader that every record names and
    /// the directories of the moment stay while the module names, each seen once, come and go.
    void add(std::string_view prefix)
    {
        if (prefix.size() < k_shortest)
            return;
        while (m_slots[m_hand].used) {
            m_slots[m_hand].used = false;
            m_hand = (m_hand + 1) % m_slots.size();
        }
        m_slots[m_hand].text.assign(prefix);
        m_hand = (m_hand + 1) % m_slots.size();
    }

private:
    static constexpr std::size_t k_shortest = 16; ///< shorter ones are screened as fast as compared
    struct Slot {
        std::string text;
        bool used = false;
    };
    std::array<Slot, 8> m_slots;
    std::size_t m_hand = 0;
};

/// The last text of a field that passed the screen clear (JsonStream::string with a memo).
class RecentText {
public:
    /// Empty before the first keep(): an empty text, which the screen passes too.
    bool holds(std::string_view text) const { return text == m_text; }
    void keep(std::string_view text) { m_text.assign(text); }

private:
    std::string m_text;
};

/// A writer, its buffer, and what each string of the model passes through: valid UTF-8 (invalid
/// bytes replaced), the secret rules, and --redact-paths when it was given.
class JsonStream {
public:
    JsonStream(json_writer::Layout layout, const TextSink& sink, const PathRedaction* redaction)
        : m_writer(m_buffer, layout), m_sink(sink), m_redaction(redaction)
    {
    }

    json_writer::Writer& operator*() { return m_writer; }
    json_writer::Writer* operator->() { return &m_writer; }

    /// One of the report's own keys (a name in this file).
    void key(const json_writer::LiteralKey& name) { m_writer.known_key(name); }

    /// A key that a tree holds: data (a variable's name; any key of a report read back).
    void data_key(std::string_view name)
    {
        const std::string_view valid = valid_utf8(name, m_scratch);
        m_writer.key(valid);
    }

    /// A string of the model's: through the secret rules (docs/secrets.md) and --redact-paths.
    /// Most strings, names and paths, are plain ASCII that no rule touches, and pass one scan
    /// (is_plain_and_clear) before they are copied between quotes. True when it was such a string.
    bool string(std::string_view text)
    {
        if (!m_redaction) {
            const std::string_view prefix = CleanPrefixes::prefix_of(text);
            const bool known = m_clean.holds(prefix);
            if (is_plain_and_clear(known ? text.substr(prefix.size()) : text)) {
                if (!known)
                    m_clean.add(prefix);
                m_writer.unescaped_string(text);
                return true;
            }
        }
        std::string_view valid = valid_utf8(text, m_scratch);
        if (may_hold_secret(valid)) {
            m_unsecret = redact_text(valid);
            valid = m_unsecret;
        }
        if (m_redaction) {
            if (valid.data() != m_scratch.data())
                m_scratch.assign(valid);
            m_redaction->apply(m_scratch);
            valid = m_scratch;
        }
        m_writer.string(valid);
        return false;
    }

    /// The same for a field whose text often repeats from one record to the next (a loader, a
    /// kind, a package, a frame's module): a text equal to the last one `recent` passed plain is
    /// copied between quotes without a scan, as the scan would pass it again.
    void string(std::string_view text, RecentText& recent)
    {
        if (!m_redaction && recent.holds(text))
            m_writer.unescaped_string(text);
        else if (string(text))
            recent.keep(text);
    }

    /// A text of importscope's own (a status), which no target controls: copied between quotes.
    void own_text(std::string_view text) { m_writer.unescaped_string(text); }

    /// A string of a tree, which is redacted already.
    void plain(std::string_view text)
    {
        const std::string_view valid = valid_utf8(text, m_scratch);
        m_writer.string(valid);
    }

    void number(double value) { m_writer.number(value); } // null for NaN, as JSON has none

    /// Any JSON tree, keys in its own (sorted) order.
    void value(const nlohmann::json& v)
    {
        switch (v.type()) {
        case nlohmann::json::value_t::boolean:
            m_writer.boolean(v.get<bool>());
            break;
        case nlohmann::json::value_t::number_integer:
            m_writer.number(v.get<std::int64_t>());
            break;
        case nlohmann::json::value_t::number_unsigned:
            m_writer.number(v.get<std::uint64_t>());
            break;
        case nlohmann::json::value_t::number_float:
            number(v.get<double>());
            break;
        case nlohmann::json::value_t::string:
            plain(v.get_ref<const std::string&>());
            break;
        case nlohmann::json::value_t::array:
            m_writer.start_array();
            for (const auto& item : v)
                value(item);
            m_writer.end_array();
            break;
        case nlohmann::json::value_t::object:
            m_writer.start_object();
            for (const auto& [name, item] : v.items()) {
                data_key(name);
                value(item);
            }
            m_writer.end_object();
            break;
        default: // null, and what a parsed report never holds (binary, discarded)
            m_writer.null();
        }
    }

    /// Starts again on an empty buffer, at the top.
    void restart()
    {
        m_buffer.clear();
        m_writer.reset(m_buffer);
    }

    /// Writes one value at the end of `other`'s buffer, from the top, until restart().
    void write_into(JsonStream& other) { m_writer.reset(other.m_buffer); }

    /// What is written and not yet handed to the sink.
    std::string_view text() const { return m_buffer; }

    /// Room for a piece that flush() hands over and the record that takes it past k_piece.
    void reserve_pieces() { m_buffer.reserve(k_piece + k_piece / 4); }

    /// Hands what is written so far to the sink once it is big enough, or at the end.
    void flush(bool at_end = false)
    {
        if (!at_end && m_buffer.size() < k_piece)
            return;
        m_sink(m_buffer);
        m_buffer.clear();
    }

private:
    /// What is handed to the sink at a time: a buffer made once (reserved with room for the record
    /// that passes it), rather than one that doubles past it, touching twice the memory.
    static constexpr std::size_t k_piece = std::size_t{256} << 10;

    std::string m_buffer;
    json_writer::Writer m_writer;
    const TextSink& m_sink;
    const PathRedaction* m_redaction;
    std::string m_scratch;
    std::string m_unsecret; ///< a string with its secrets redacted
    CleanPrefixes m_clean;
};

/// The report's top-level object, indented by two.
class TreeStream : public JsonStream {
public:
    TreeStream(const TextSink& sink, const PathRedaction* redaction)
        : JsonStream(json_writer::Layout::indented, sink, redaction)
    {
        reserve_pieces();
    }
};

/// A record, compact on a line of its own.
class RecordStream : public JsonStream {
public:
    RecordStream(const TextSink& sink, const PathRedaction* redaction)
        : JsonStream(json_writer::Layout::compact, sink, redaction)
    {
    }
};

/// The texts the frames of a report repeat, each frame's from the one before.
struct FrameTexts {
    RecentText function; ///< "<module>" in most
    RecentText module;
};

void write_frame(RecordStream& j, const journal::Frame& frame, FrameTexts& recent)
{
    j->start_object();
    j.key("file");
    j.string(frame.file);
    j.key("function");
    j.string(frame.function, recent.function);
    j.key("line");
    j->number(frame.line);
    j.key("module");
    j.string(frame.module, recent.module);
    j->end_object();
}

void write_error(RecordStream& j, const std::optional<journal::ExceptionInfo>& error)
{
    if (!error) {
        j->null();
        return;
    }
    j->start_object();
    j.key("message");
    j.string(error->message);
    j.key("traceback");
    j.string(error->traceback);
    j.key("type");
    j.string(error->type);
    j->end_object();
}

void write_identity(RecordStream& j, const std::optional<journal::FileIdentity>& identity)
{
    if (!identity) {
        j->null();
        return;
    }
    j->start_object();
    j.key("dev");
    j->number(identity->dev);
    j.key("ino");
    j->number(identity->ino);
    j->end_object();
}

/// Which index of the report's "frames" each frame has, while the table is made. A frame its
/// journal numbered is told by that number (the modules of a deep package all repeat the same
/// outer frames), any other by its text.
class FrameIndexes {
public:
    explicit FrameIndexes(std::vector<const journal::Frame*>& frames) : m_frames(frames) {}

    /// The frames of the records of `journal` are looked up next.
    void select(const std::string& journal)
    {
        if (!m_journal || *m_journal != journal) {
            m_journal = &journal;
            m_numbered = &m_by_journal[journal];
        }
    }

    /// The index of `frame`, of the selected journal; a new one at the end of the frames.
    std::uint32_t index_of(const journal::Frame& frame)
    {
        const auto next = static_cast<std::uint32_t>(m_frames.size());
        if (numbered(frame)) {
            if (m_numbered->size() <= frame.number)
                m_numbered->resize(std::size_t{frame.number} + 1);
            std::uint32_t& slot = (*m_numbered)[frame.number]; // the index plus one; 0: not yet
            if (slot != 0)
                return slot - 1;
            slot = next + 1;
        } else if (const auto [it, added] = m_by_text.emplace(text_key(frame), next); !added) {
            return it->second;
        }
        m_frames.push_back(&frame);
        return next;
    }

private:
    static constexpr std::uint32_t k_most = 1 << 20; ///< numbers beyond are not kept (a damaged journal)

    static bool numbered(const journal::Frame& frame) { return frame.number != 0 && frame.number <= k_most; }
    /// A frame's text, viewed in the model (which outlives the table).
    struct TextKey {
        std::string_view file;
        int line;
        std::string_view function;
        std::string_view module;

        bool operator==(const TextKey&) const = default;
    };
    struct TextKeyHash {
        std::size_t operator()(const TextKey& k) const noexcept
        {
            const std::hash<std::string_view> hash;
            std::size_t h = hash(k.file);
            for (const std::size_t part : {hash(k.function), hash(k.module), static_cast<std::size_t>(k.line)})
                h = h * 1'000'003 ^ part;
            return h;
        }
    };
    static TextKey text_key(const journal::Frame& frame)
    {
        return {frame.file, frame.line, frame.function, frame.module};
    }

    std::vector<const journal::Frame*>& m_frames;
    std::unordered_map<std::string, std::vector<std::uint32_t>> m_by_journal;
    std::unordered_map<TextKey, std::uint32_t, TextKeyHash> m_by_text;
    const std::string* m_journal = nullptr; ///< the selected journal, and its numbered frames' indexes
    std::vector<std::uint32_t>* m_numbered = nullptr;
};

/// The report's "frames": each frame that a module record names, written once, in the order the
/// records first name it; and each record's stack, call_site and caught_at as indexes into it,
/// found once, here, and read back in order as the records are written.
class ReportFrames {
public:
    explicit ReportFrames(std::span<const analysis::ModuleRecord* const> records)
    {
        FrameIndexes indexes(m_frames);
        m_first.reserve(records.size() + 1);
        for (const analysis::ModuleRecord* r : records) {
            m_first.push_back(m_indexes.size());
            indexes.select(r->journal);
            for (const journal::SharedFrame& frame : r->stack)
                m_indexes.push_back(indexes.index_of(*frame));
            if (r->caught_at)
                m_indexes.push_back(indexes.index_of(*r->caught_at));
        }
        m_first.push_back(m_indexes.size());
    }

    /// The indexes of the frames of the records' `n`th: its stack's, then its caught_at's.
    std::span<const std::uint32_t> indexes_of(std::size_t n) const
    {
        return std::span<const std::uint32_t>(m_indexes).subspan(m_first[n], m_first[n + 1] - m_first[n]);
    }

    const std::vector<const journal::Frame*>& frames() const { return m_frames; }

private:
    std::vector<const journal::Frame*> m_frames; ///< the table, in the model's records
    std::vector<std::uint32_t> m_indexes;        ///< each record's frames' indexes, one record after another
    std::vector<std::size_t> m_first;            ///< where each record's indexes begin, and the end
};

/// The texts the module records of a report repeat, each record's from the one before: a run's
/// records share their kind and loader, a package's their parent, and most a real path equal to
/// the origin.
struct ModuleTexts {
    RecentText kind;
    RecentText loader;
    RecentText parent;
    RecentText file; ///< the origin, then the real path
};

/// One module record (docs/report-format.md), keys sorted; `frames`: the indexes of its frames in
/// the report's "frames", its stack's and then its caught_at's (ReportFrames::indexes_of).
void write_module(RecordStream& j, std::span<const std::uint32_t> frames, const analysis::ModuleRecord& r,
                  ModuleTexts& recent)
{
    const std::size_t depth = r.stack.size();
    j->start_object();
    if (r.by_path) {
        j.key("by_path");
        j->boolean(true);
    }
    j.key("call_site");
    if (depth != 0)
        j->number(frames[depth - 1]);
    else
        j->null();
    if (r.caught_at) {
        j.key("caught_at");
        j->number(frames[depth]);
    }
    j.key("duration_ms");
    if (r.duration_ms)
        j.number(*r.duration_ms);
    else
        j->null();
    j.key("error");
    write_error(j, r.error);
    if (!r.existing_module.empty()) {
        j.key("existing_module");
        j.string(r.existing_module);
    }
    j.key("file_identity");
    write_identity(j, r.identity);
    j.key("initialized_extension");
    j->boolean(r.initialized_extension);
    j.key("kind");
    j.string(r.kind, recent.kind);
    if (r.late) {
        j.key("late");
        j->boolean(true);
    }
    j.key("loader");
    j.string(r.loader, recent.loader);
    j.key("name");
    j.string(r.name);
    j.key("order");
    j->number(r.order);
    j.key("origin");
    j.string(r.origin, recent.file);
    j.key("parent");
    j.string(r.parent, recent.parent);
    j.key("pid");
    j->number(r.pid);
    j.key("realpath");
    j.string(r.realpath, recent.file);
    j.key("stack");
    j->start_array();
    for (const std::uint32_t index : frames.first(depth))
        j->number(index);
    j->end_array();
    j.key("status");
    j.own_text(analysis::to_string(r.status));
    j.key("via_finder");
    j->boolean(r.via_finder);
    if (!r.warnings.empty()) {
        j.key("warnings");
        j->start_array();
        for (const auto& warning : r.warnings)
            j.string(warning);
        j->end_array();
    }
    j->end_object();
}

/// One of the report's lists of records ("frames", "modules"): each record written compact by
/// `write_record` as an item, on a line of its own, straight into the report's buffer.
template <typename Records, typename WriteRecord>
void write_records_of(TreeStream& j, std::string_view key, const Records& records, const PathRedaction* redaction,
                   WriteRecord&& write_record)
{
    const TextSink unused = [](std::string_view) {};
    RecordStream record(unused, redaction);
    j.data_key(key);
    j->start_array();
    for (const auto& r : records) {
        j->item_follows();
        record.write_into(j);
        write_record(record, r);
        j.flush();
    }
    j->end_array();
}

/// The top-level keys whose records are streamed, in their order: a report tree holds none of them.
constexpr std::array<std::string_view, 2> k_streamed_keys = {"frames", "modules"};

bool is_streamed(std::string_view key)
{
    return std::find(k_streamed_keys.begin(), k_streamed_keys.end(), key) != k_streamed_keys.end();
}

/// The start of a report's top-level object: its "schema" (from `schema`, when a string), then
/// each of k_streamed_keys, written by `streamed(key)`. The records come before everything
/// else that is large, so that they can be written before the rest is known (ReportWriter).
template <typename WriteStreamed>
void write_head(TreeStream& j, const char* schema, WriteStreamed&& streamed)
{
    j->start_object();
    if (schema) {
        j.key("schema");
        j.plain(schema);
    }
    for (const std::string_view key : k_streamed_keys)
        streamed(key);
}

/// The rest of a report's top-level object: the keys of `report` in their (sorted) order, but
/// "schema" and the streamed ones, which write_head wrote.
void write_rest_of(TreeStream& j, const nlohmann::json& report)
{
    for (const auto& [name, value] : report.items()) {
        if (name == "schema" || is_streamed(name))
            continue;
        j.data_key(name);
        j.value(value); // the tree is redacted already
    }
    j->end_object();
    j.flush(true);
}

} // namespace

struct ReportWriter::Stream {
    Stream(TextSink sink_, const PathRedaction* redaction_)
        : sink(std::move(sink_)), redaction(redaction_), json(sink, redaction)
    {
    }
    TextSink sink; ///< before `json`, which refers to it
    const PathRedaction* redaction;
    TreeStream json;
};

ReportWriter::ReportWriter(TextSink sink, const PathRedaction* redaction)
    : m_stream(std::make_unique<Stream>(std::move(sink), redaction))
{
}

ReportWriter::~ReportWriter() = default;

void ReportWriter::write_records(std::span<const analysis::ModuleRecord* const> records)
{
    if (m_records_written)
        throw std::logic_error("ReportWriter::write_records called twice");
    m_records_written = true;
    TreeStream& j = m_stream->json;
    const PathRedaction* redaction = m_stream->redaction;
    const ReportFrames frames(records);
    write_head(j, k_schema, [&](std::string_view key) {
        if (key == "frames")
            write_records_of(j, key, frames.frames(), redaction,
                             [recent = FrameTexts()](RecordStream& record, const journal::Frame* frame) mutable {
                                 write_frame(record, *frame, recent);
                             });
        else
            write_records_of(j, key, records, redaction,
                             [&, n = std::size_t{0}, recent = ModuleTexts()](RecordStream& record,
                                                                             const analysis::ModuleRecord* r) mutable {
                                 write_module(record, frames.indexes_of(n++), *r, recent);
                             });
    });
    j.flush(true); // all of it in the sink's hands: the rest may come much later
}

void ReportWriter::write_rest(const Document& report)
{
    if (!m_records_written)
        throw std::logic_error("ReportWriter::write_rest called before write_records");
    if (!report.modules.empty() || !report.frames.empty())
        throw std::logic_error(
            "ReportWriter needs build_report's document, which leaves the frames and module records out");
    if (report.schema != k_schema)
        throw std::logic_error("ReportWriter writes reports of schema " + std::string(k_schema));
    write_rest_of(m_stream->json, nlohmann::json(report));
    m_stream->sink("\n");
}

std::vector<const analysis::ModuleRecord*> records_of(const analysis::RunModel& model)
{
    std::vector<const analysis::ModuleRecord*> records;
    records.reserve(model.modules.size());
    for (const analysis::ModuleRecord& r : model.modules)
        records.push_back(&r);
    return records;
}

void write_report(const Document& report, const analysis::RunModel& model, const PathRedaction* redaction,
                  const TextSink& sink)
{
    ReportWriter writer(sink, redaction);
    writer.write_records(records_of(model));
    writer.write_rest(report);
}

std::string report_text(const Document& report, const analysis::RunModel& model, const PathRedaction* redaction)
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
    if (value.is_object() && value.contains("modules") && value.at("modules").is_array()) {
        const auto schema = value.find("schema");
        write_head(j, schema != value.end() && schema->is_string() ? schema->get_ref<const std::string&>().c_str() : nullptr,
                   [&](std::string_view key) {
                       const auto records = value.find(key);
                       if (records == value.end())
                           return;
                       if (!records->is_array()) {
                           j.data_key(key);
                           j.value(*records);
                           return;
                       }
                       write_records_of(j, key, *records, nullptr,
                                        [](RecordStream& record, const nlohmann::json& r) { record.value(r); });
                   });
        if (schema != value.end() && !schema->is_string()) {
            j.key("schema");
            j.value(*schema);
        }
        write_rest_of(j, value);
    } else {
        j.value(value);
        j.flush(true);
    }
    text += '\n';
    return text;
}

} // namespace importscope::report
