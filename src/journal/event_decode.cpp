// decode(): one journal line back into its event, through the journal's own JSON reader
// (json_line.hpp): the line is checked once, and each field is converted straight from its text
// into the event.

#include "importscope/journal/event.hpp"

#include "json_line.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

namespace importscope::journal {

namespace {

using json_line::Value;

[[noreturn]] void bad_field(std::string_view key, const char* problem)
{
    throw std::invalid_argument("field \"" + std::string(key) + "\" " + problem);
}

std::string take_string(const Value& value, std::string_view key)
{
    if (value.type != Value::Type::string)
        bad_field(key, "is not a string");
    return json_line::string(value);
}

template <typename Integer>
Integer to_integer(const Value& value, std::string_view key)
{
    Integer result{};
    if (value.type != Value::Type::number)
        bad_field(key, "is not a number");
    const char* end = value.text.data() + value.text.size();
    const auto [ptr, ec] = std::from_chars(value.text.data(), end, result);
    if (ec != std::errc() || ptr != end)
        bad_field(key, "is not an integer in range");
    return result;
}

/// The members of one parsed JSON object, looked up by key.
class Fields {
public:
    Fields(const json_line::Document& document, std::size_t object, std::string_view what,
           FrameTable* frames = nullptr)
        : m_document(document), m_object(object), m_frames(frames)
    {
        if (document.value(object).type != Value::Type::object)
            throw std::invalid_argument(std::string(what) + " is not a JSON object");
    }

    /// The value node of the first member of that name, or 0.
    std::size_t find_node(std::string_view key) const
    {
        for (std::size_t at = m_object + 1; at < m_document.end(m_object); at = m_document.end(at + 1))
            if (json_line::key_is(m_document.value(at), key))
                return at + 1;
        return 0;
    }

    const Value* find(std::string_view key) const
    {
        const std::size_t node = find_node(key);
        return node ? &m_document.value(node) : nullptr;
    }

    const Value& at(std::string_view key) const { return m_document.value(node_at(key)); }

    std::string string(std::string_view key) { return take_string(at(key), key); }

    /// Optional text: missing or null is empty.
    std::string string_or_empty(std::string_view key)
    {
        const Value* value = find(key);
        return value && value->type != Value::Type::null ? take_string(*value, key) : std::string();
    }

    template <typename Integer>
    Integer integer(std::string_view key)
    {
        return to_integer<Integer>(at(key), key);
    }

    bool boolean_or(std::string_view key, bool fallback)
    {
        const Value* value = find(key);
        if (!value || value->type == Value::Type::null)
            return fallback;
        if (value->type != Value::Type::boolean)
            bad_field(key, "is not a boolean");
        return value->text == "true";
    }

    std::vector<std::string> strings(std::string_view key)
    {
        const std::size_t array = array_node(key);
        std::vector<std::string> out;
        m_document.each_item(array, [&](std::size_t item) { out.push_back(take_string(m_document.value(item), key)); });
        return out;
    }

    /// dev and ino together, or nothing.
    std::optional<FileIdentity> identity()
    {
        if (!find("dev") || !find("ino"))
            return std::nullopt;
        return FileIdentity{integer<std::uint64_t>("dev"), integer<std::uint64_t>("ino")};
    }

    ExceptionInfo exception(std::string_view key)
    {
        Fields e(m_document, node_at(key), key);
        return {e.string("type"), e.string("message"), e.string_or_empty("traceback")};
    }

    /// An optional stack: missing or null is empty.
    std::vector<Frame> frames(std::string_view key)
    {
        const std::size_t array = find_node(key);
        if (array == 0 || m_document.value(array).type == Value::Type::null)
            return {};
        if (m_document.value(array).type != Value::Type::array)
            bad_field(key, "is not an array");
        std::vector<Frame> out;
        m_document.each_item(array, [&](std::size_t item) {
            if (out.size() == FrameTable::k_max_stack)
                bad_field(key, "has more frames than a stack can (FrameTable::k_max_stack)");
            if (m_document.value(item).type == Value::Type::number) {
                const Frame& frame = frame_table().at(to_integer<std::uint32_t>(m_document.value(item), "a frame number"));
                frame_table().charge(frame);
                out.push_back(frame);
                return;
            }
            Fields f(m_document, item, "a frame");
            Frame& frame = out.emplace_back();
            frame.file = f.string("file");
            frame.line = f.integer<int>("line");
            frame.function = f.string_or_empty("function");
            frame.module = f.string_or_empty("module");
            if (f.find("id")) {
                frame.number = f.integer<std::uint32_t>("id");
                if (frame.number == 0)
                    bad_field("id", "is not a frame number (they count from 1)");
                frame_table().define(frame);
            }
        });
        return out;
    }

    std::vector<TypeOwner> owners(std::string_view key)
    {
        std::vector<TypeOwner> out;
        m_document.each_item(array_node(key), [&](std::size_t item) {
            Fields o(m_document, item, "a type owner");
            TypeOwner& owner = out.emplace_back();
            owner.module = o.string("module");
            owner.file = o.string_or_empty("file");
            owner.realpath = o.string_or_empty("realpath");
            owner.qualname = o.string_or_empty("qualname");
            owner.pybind11 = o.boolean_or("pybind11", false);
            owner.identity = o.identity();
        });
        return out;
    }

private:
    std::size_t node_at(std::string_view key) const
    {
        const std::size_t node = find_node(key);
        if (node == 0)
            bad_field(key, "is missing");
        return node;
    }

    std::size_t array_node(std::string_view key) const
    {
        const std::size_t node = node_at(key);
        if (m_document.value(node).type != Value::Type::array)
            bad_field(key, "is not an array");
        return node;
    }

    FrameTable& frame_table()
    {
        if (!m_frames)
            throw std::logic_error("frames are read from an event's own fields only");
        return *m_frames;
    }

    const json_line::Document& m_document;
    std::size_t m_object;
    FrameTable* m_frames; ///< the line's journal's; null in the objects nested in a line
};

/// The fields every event but the process start has.
template <typename E>
E stamped(Fields& j)
{
    E e;
    e.pid = j.integer<int>("pid");
    e.seq = j.integer<std::uint64_t>("seq");
    e.mono_ns = j.integer<std::int64_t>("t");
    return e;
}

Event decode_object(Fields& j)
{
    const std::string tag = j.string("ev");
    if (tag == "process") {
        ProcessStart e;
        e.format = j.integer<int>("format");
        if (e.format < k_oldest_format_version || e.format > k_format_version)
            throw std::invalid_argument("journal format " + std::to_string(e.format) + " is not supported");
        e.pid = j.integer<int>("pid");
        e.ppid = j.integer<int>("ppid");
        e.argv = j.strings("argv");
        e.executable = j.string("executable");
        e.python_version = j.string("python");
        e.cwd = j.string("cwd");
        e.start_method = j.string("start_method");
        e.wall_ns = j.integer<std::int64_t>("wall_ns");
        e.mono_ns = j.integer<std::int64_t>("t");
        return e;
    }
    if (tag == "begin") {
        auto e = stamped<ImportBegin>(j);
        e.id = j.integer<std::uint64_t>("id");
        e.name = j.string("name");
        e.kind = j.string("kind");
        e.origin = j.string_or_empty("origin");
        e.realpath = j.string_or_empty("realpath");
        e.loader = j.string_or_empty("loader");
        e.parent = j.string_or_empty("parent");
        e.identity = j.identity();
        e.stack = j.frames("stack");
        return e;
    }
    if (tag == "end") {
        auto e = stamped<ImportEnd>(j);
        e.id = j.integer<std::uint64_t>("id");
        if (j.find("error"))
            e.error = j.exception("error");
        if (j.find("warnings"))
            e.warnings = j.strings("warnings");
        return e;
    }
    if (tag == "ext") {
        auto e = stamped<ExtensionLoad>(j);
        e.name = j.string("name");
        e.path = j.string("path");
        e.realpath = j.string_or_empty("realpath");
        e.identity = j.identity();
        e.stack = j.frames("stack");
        return e;
    }
    if (tag == "uncaught") {
        auto e = stamped<UncaughtException>(j);
        e.exception = j.exception("exception");
        return e;
    }
    if (tag == "exit") {
        auto e = stamped<ProcessEnd>(j);
        e.wall_ns = j.integer<std::int64_t>("wall_ns");
        e.how = j.string("how");
        e.code = j.integer<int>("code");
        return e;
    }
    if (tag == "program") {
        auto e = stamped<ProgramStart>(j);
        e.via = j.string("via");
        e.executable = j.string_or_empty("executable");
        e.argv = j.strings("argv");
        e.env = j.string_or_empty("env");
        return e;
    }
    if (tag == "alias") {
        auto e = stamped<AliasSeen>(j);
        e.key = j.string("key");
        e.module_name = j.string("module");
        e.file = j.string_or_empty("file");
        e.stack = j.frames("stack");
        return e;
    }
    if (tag == "type_owners") {
        auto e = stamped<TypeOwners>(j);
        e.type_name = j.string("type");
        e.owners = j.owners("owners");
        return e;
    }
    if (tag == "installation") {
        auto e = stamped<Installation>(j);
        e.name = j.string("name");
        e.origin = j.string_or_empty("origin");
        return e;
    }
    if (tag == "note") {
        auto e = stamped<Note>(j);
        e.text = j.string("text");
        return e;
    }
    throw std::invalid_argument("unknown event \"" + tag + "\"");
}

} // namespace

void FrameTable::define(const Frame& frame)
{
    if (!m_frames.try_emplace(frame.number, frame).second)
        throw std::invalid_argument("frame " + std::to_string(frame.number) + " is numbered twice");
}

void FrameTable::charge(const Frame& frame)
{
    m_copied_bytes += sizeof(Frame) + frame.file.size() + frame.function.size() + frame.module.size();
    if (m_copied_bytes > m_budget)
        throw std::invalid_argument(fmt::format("the journal's stacks copy more than {} MiB of frames (its frame "
                                                "numbers expand past {} times its size); the line is not read",
                                                m_budget >> 20, k_copies_per_byte));
}

const Frame& FrameTable::at(std::uint32_t number) const
{
    const auto it = m_frames.find(number);
    if (it == m_frames.end())
        throw std::invalid_argument("frame " + std::to_string(number) + " is not written whole earlier in the journal");
    return it->second;
}

Event decode(std::string_view line, FrameTable& frames)
{
    // One document per thread, its storage kept from line to line.
    thread_local json_line::Document document;
    document.parse(line);
    if (document.value(document.root()).type != Value::Type::object)
        throw std::invalid_argument("not a JSON object");
    Fields fields(document, document.root(), "the line", &frames);
    return decode_object(fields);
}

Event decode(std::string_view line)
{
    FrameTable frames;
    return decode(line, frames);
}

} // namespace importscope::journal
