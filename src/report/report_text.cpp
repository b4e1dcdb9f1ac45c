// The report file's text with the module records written straight from the model: the one part of
// a report that grows with the target (a record per recorded import) never becomes a JSON tree.

#include "importscope/report/redact_paths.hpp"
#include "importscope/report/report.hpp"
#include "importscope/util/json_text.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <future>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace importscope::report {

namespace {

/// The module records' strings, through --redact-paths when it was given.
class RecordText {
public:
    /// Continues the report's text with `open` brackets open: 2 inside its '{' and the modules' '['
    /// (which already holds records unless `first`).
    RecordText(std::string& out, const PathRedaction* redaction, std::size_t open = 2, bool first = true)
        : m_json(out, JsonText::Layout::indented, open, first), m_redaction(redaction)
    {
    }

    const PathRedaction* redaction() const { return m_redaction; }

    /// Everything but strings goes to the writer as it is.
    JsonText* operator->() { return &m_json; }

    void string(const std::string& text)
    {
        if (!m_redaction) {
            m_json.string(text);
            return;
        }
        std::string redacted = text;
        m_redaction->apply(redacted);
        m_json.string(redacted);
    }

private:
    JsonText m_json;
    const PathRedaction* m_redaction;
};

void write_frame(RecordText& j, const journal::Frame& frame)
{
    j->begin_object();
    j->key("file");
    j.string(frame.file);
    j->key("function");
    j.string(frame.function);
    j->key("line");
    j->integer(frame.line);
    j->key("module");
    j.string(frame.module);
    j->end_object();
}

/// The text of numbered stack frames, made once per journal, frame number and depth (a call site
/// stands one level out of the stack that repeats it): the modules of a deep package all repeat
/// the same outer frames, and a report writes every module's whole stack.
class FrameTexts {
public:
    /// The texts of one journal's frames, at one depth.
    class Texts {
    public:
        /// Writes the frame at the writer's place, which must be at this texts' depth.
        void write(RecordText& j, const journal::Frame& frame)
        {
            if (frame.number == 0 || frame.number > k_most) {
                write_frame(j, frame);
                return;
            }
            if (m_texts.size() <= frame.number)
                m_texts.resize(std::size_t{frame.number} + 1);
            std::string& text = m_texts[frame.number];
            if (text.empty()) {
                text.reserve(256); // a frame's text, in one allocation
                RecordText own(text, j.redaction(), j->depth());
                write_frame(own, frame);
            }
            j->raw(text);
        }

    private:
        static constexpr std::uint32_t k_most = 1 << 20; ///< numbers beyond are not kept (a damaged journal)
        std::vector<std::string> m_texts;
    };

    struct Journal {
        Texts call_site; ///< as a record's call site
        Texts stack;     ///< inside a record's stack
    };

    Journal& of(const std::string& journal) { return m_journals[journal]; }

private:
    std::unordered_map<std::string, Journal> m_journals;
};

/// One record, with the keys and values of module_json() in report_json.cpp.
void write_module(RecordText& j, FrameTexts& frames, const analysis::ModuleRecord& r)
{
    j->begin_object();
    FrameTexts::Journal& texts = frames.of(r.journal);
    j->key("call_site");
    if (const journal::Frame* site = r.call_site())
        texts.call_site.write(j, *site);
    else
        j->null();
    j->key("duration_ms");
    if (r.duration_ms)
        j->number(*r.duration_ms);
    else
        j->null();
    j->key("error");
    if (r.error) {
        j->begin_object();
        j->key("message");
        j.string(r.error->message);
        j->key("traceback");
        j.string(r.error->traceback);
        j->key("type");
        j.string(r.error->type);
        j->end_object();
    } else {
        j->null();
    }
    j->key("file_identity");
    if (r.identity) {
        j->begin_object();
        j->key("dev");
        j->integer(r.identity->dev);
        j->key("ino");
        j->integer(r.identity->ino);
        j->end_object();
    } else {
        j->null();
    }
    j->key("initialized_extension");
    j->boolean(r.initialized_extension);
    j->key("kind");
    j.string(r.kind);
    j->key("loader");
    j.string(r.loader);
    j->key("name");
    j.string(r.name);
    j->key("order");
    j->integer(r.order);
    j->key("origin");
    j.string(r.origin);
    j->key("parent");
    j.string(r.parent);
    j->key("pid");
    j->integer(r.pid);
    j->key("realpath");
    j.string(r.realpath);
    j->key("stack");
    j->begin_array();
    for (const auto& frame : r.stack) {
        j->item();
        texts.stack.write(j, frame);
    }
    j->end_array();
    j->key("status");
    j.string(analysis::to_string(r.status));
    j->key("via_finder");
    j->boolean(r.via_finder);
    if (!r.warnings.empty()) {
        j->key("warnings");
        j->begin_array();
        for (const auto& warning : r.warnings) {
            j->item();
            j.string(warning);
        }
        j->end_array();
    }
    j->end_object();
}

/// The texts made ahead for each record of the model (null: write it), from `made`.
using MadeTexts = std::vector<const std::string*>;

/// Appends to `text` the text of records [begin, end) of the modules' array, as one writer going
/// through all the records would write it there.
void append_records(std::string& text, const analysis::RunModel& model, std::size_t begin, std::size_t end,
                    const PathRedaction* redaction, FrameTexts& frames, const MadeTexts& made)
{
    text.reserve(text.size() + (end - begin) * std::size_t{2048});
    RecordText j(text, redaction, 2, begin == 0);
    for (std::size_t i = begin; i < end; ++i) {
        j->item();
        if (!made.empty() && made[i])
            j->raw(*made[i]);
        else
            write_module(j, frames, model.modules[i]);
    }
}

} // namespace

/// Each record's text as an item of the report's modules array, by journal and place (order).
struct RecordTexts::State {
    FrameTexts frames;
    std::unordered_map<std::string, std::unordered_map<std::uint64_t, std::string>> by_journal;
    std::size_t count = 0;
};

RecordTexts::RecordTexts(const PathRedaction* redaction) : m_redaction(redaction), m_state(std::make_unique<State>()) {}

RecordTexts::~RecordTexts() = default;

void RecordTexts::add(const analysis::ModuleRecord& record)
{
    auto [it, added] = m_state->by_journal[record.journal].try_emplace(record.order);
    if (!added)
        return; // a place another record has: write_report() uses neither (made_texts())
    std::string& text = it->second;
    text.reserve(2048);
    RecordText j(text, m_redaction, 2); // the record stands inside the report's '{' and the modules' '['
    write_module(j, m_state->frames, record);
    text.shrink_to_fit(); // held until the report is written: a long run holds tens of thousands
    ++m_state->count;
}

std::size_t RecordTexts::size() const
{
    return m_state->count;
}

namespace {

/// The texts `made` holds for the records of `model`. A place two of the model's records share
/// (never in a journal importscope wrote) gets none, whichever of them the text was made of.
MadeTexts made_texts(const analysis::RunModel& model, const RecordTexts::State& made)
{
    MadeTexts texts(model.modules.size(), nullptr);
    std::unordered_map<const std::string*, std::size_t> uses;
    const std::string* journal = nullptr;
    const std::unordered_map<std::uint64_t, std::string>* of_journal = nullptr;
    for (std::size_t i = 0; i < model.modules.size(); ++i) {
        const analysis::ModuleRecord& r = model.modules[i];
        if (!journal || *journal != r.journal) {
            journal = &r.journal;
            const auto it = made.by_journal.find(r.journal);
            of_journal = it == made.by_journal.end() ? nullptr : &it->second;
        }
        if (!of_journal)
            continue;
        const auto it = of_journal->find(r.order);
        if (it == of_journal->end())
            continue;
        texts[i] = &it->second;
        ++uses[texts[i]];
    }
    for (auto& text : texts)
        if (text && uses[text] > 1)
            text = nullptr;
    return texts;
}

} // namespace

void write_report(const nlohmann::json& report, const analysis::RunModel& model, const PathRedaction* redaction,
                  const TextSink& sink, const RecordTexts* made)
{
    std::string head = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    // Only the report's own keys stand two spaces in, so this is its "modules", not a nested one.
    constexpr std::string_view k_slot = "\n  \"modules\": []";
    const std::size_t slot = head.find(k_slot);
    if (slot == std::string::npos || !report.at("modules").empty())
        throw std::logic_error("write_report needs a report built with ModuleRecords::deferred");
    if (model.modules.empty()) {
        head += '\n';
        sink(head);
        return;
    }
    const std::size_t rest = slot + k_slot.size();

    // The records are written in pieces of k_piece records, two at a time: the second on another
    // thread (the run is over, the machine's other cores are idle), each thread with its own frame
    // texts. The pieces reach the sink in order, and at most two are held at once, each in a
    // buffer used again for the next pieces (a new one each time costs a page fault per 4 KiB).
    // Records with a text made ahead are copied; a piece of only those is not worth a thread.
    MadeTexts texts;
    if (made) {
        if (made->m_redaction != redaction)
            throw std::logic_error("write_report needs record texts made with the report's own redaction");
        texts = made_texts(model, *made->m_state);
    }
    auto all_made = [&](std::size_t begin, std::size_t end) {
        return !texts.empty() && std::all_of(texts.begin() + static_cast<std::ptrdiff_t>(begin),
                                             texts.begin() + static_cast<std::ptrdiff_t>(end),
                                             [](const std::string* text) { return text != nullptr; });
    };
    constexpr std::size_t k_piece = 512; // about a megabyte of text
    std::string out(head, 0, rest - 1);  // up to and including the '['
    std::string other;                   // the second piece's, when a thread writes it
    std::array<FrameTexts, 2> frames;
    const std::size_t count = model.modules.size();
    for (std::size_t at = 0; at < count; at += 2 * k_piece) {
        const std::size_t middle = std::min(at + k_piece, count);
        const std::size_t stop = std::min(at + 2 * k_piece, count);
        std::future<void> second;
        if (middle < stop && !all_made(middle, stop))
            second = std::async(std::launch::async, [&, middle, stop] {
                other.clear();
                append_records(other, model, middle, stop, redaction, frames[1], texts);
            });
        append_records(out, model, at, middle, redaction, frames[0], texts);
        sink(out);
        out.clear();
        if (second.valid()) {
            second.get();
            sink(other);
        } else if (middle < stop) {
            append_records(out, model, middle, stop, redaction, frames[0], texts);
            sink(out);
            out.clear();
        }
    }
    JsonText(out, JsonText::Layout::indented, 2, false).end_array();
    out.append(head, rest, std::string::npos);
    out += '\n';
    sink(out);
}

std::string dump_report(const nlohmann::json& report, const analysis::RunModel& model, const PathRedaction* redaction)
{
    std::string text;
    write_report(report, model, redaction, [&](std::string_view piece) { text += piece; });
    return text;
}

} // namespace importscope::report
