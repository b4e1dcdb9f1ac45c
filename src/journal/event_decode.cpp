// decode(): one journal line back into its event. RapidJSON parses the line (strictly: valid
// UTF-8, nothing after the object, iteratively so that no nesting runs the stack out), and the
// decoder of its "ev" converts each field from its value into the event.

#include "importscope/journal/event.hpp"
#include "importscope/util/utf8.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <array>
#include <cstddef>
#include <stdexcept>
#include <utility>

namespace importscope::journal {

namespace {

using Value = rapidjson::Value;

[[noreturn]] void bad_field(std::string_view key, const char* problem)
{
    throw std::invalid_argument("field \"" + std::string(key) + "\" " + problem);
}

std::string take_string(const Value& value, std::string_view key)
{
    if (!value.IsString())
        bad_field(key, "is not a string");
    return {value.GetString(), value.GetStringLength()};
}

template <typename Integer>
Integer to_integer(const Value& value, std::string_view key)
{
    if (value.IsInt64() && std::in_range<Integer>(value.GetInt64()))
        return static_cast<Integer>(value.GetInt64());
    if (value.IsUint64() && std::in_range<Integer>(value.GetUint64()))
        return static_cast<Integer>(value.GetUint64());
    bad_field(key, value.IsNumber() ? "is not an integer in range" : "is not a number");
}

/// The members of one parsed JSON object, looked up by key.
class Fields {
public:
    Fields(const Value& object, std::string_view what, FrameTable* frames = nullptr) : m_object(object), m_frames(frames)
    {
        if (!object.IsObject())
            throw std::invalid_argument(std::string(what) + " is not a JSON object");
    }

    /// The value of the first member of that name, or null.
    const Value* find(std::string_view key) const
    {
        const auto it = m_object.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
        return it == m_object.MemberEnd() ? nullptr : &it->value;
    }

    const Value& at(std::string_view key) const
    {
        const Value* value = find(key);
        if (!value)
            bad_field(key, "is missing");
        return *value;
    }

    std::string string(std::string_view key) const { return take_string(at(key), key); }

    /// Optional text: missing or null is empty.
    std::string string_or_empty(std::string_view key) const
    {
        const Value* value = find(key);
        return value && !value->IsNull() ? take_string(*value, key) : std::string();
    }

    template <typename Integer>
    Integer integer(std::string_view key) const
    {
        return to_integer<Integer>(at(key), key);
    }

    bool boolean_or(std::string_view key, bool fallback) const
    {
        const Value* value = find(key);
        if (!value || value->IsNull())
            return fallback;
        if (!value->IsBool())
            bad_field(key, "is not a boolean");
        return value->GetBool();
    }

    std::vector<std::string> strings(std::string_view key) const
    {
        std::vector<std::string> out;
        for (const Value& item : array(key).GetArray())
            out.push_back(take_string(item, key));
        return out;
    }

    /// dev and ino together, or nothing.
    std::optional<FileIdentity> identity() const
    {
        if (!find("dev") || !find("ino"))
            return std::nullopt;
        return FileIdentity{integer<std::uint64_t>("dev"), integer<std::uint64_t>("ino")};
    }

    ExceptionInfo exception(std::string_view key) const
    {
        const Fields e(at(key), key);
        return {e.string("type"), e.string("message"), e.string_or_empty("traceback")};
    }

    /// An optional stack: missing or null is empty.
    std::vector<Frame> frames(std::string_view key) const
    {
        const Value* stack = find(key);
        if (!stack || stack->IsNull())
            return {};
        if (!stack->IsArray())
            bad_field(key, "is not an array");
        std::vector<Frame> out;
        for (const Value& item : stack->GetArray()) {
            if (out.size() == FrameTable::k_max_stack)
                bad_field(key, "has more frames than a stack can (FrameTable::k_max_stack)");
            out.push_back(frame(item));
        }
        return out;
    }

    /// A frame written whole, not numbered.
    Frame whole_frame(std::string_view key) const
    {
        const Value& item = at(key);
        if (!item.IsObject())
            bad_field(key, "is not a frame");
        Frame frame = this->frame(item);
        if (frame.number != 0)
            bad_field(key, "is numbered, and only a stack's frames are");
        return frame;
    }

    std::vector<TypeOwner> owners(std::string_view key) const
    {
        std::vector<TypeOwner> out;
        for (const Value& item : array(key).GetArray()) {
            const Fields o(item, "a type owner");
            TypeOwner& owner = out.emplace_back();
            owner.module = o.string("module");
            owner.file = o.string_or_empty("file");
            owner.realpath = o.string_or_empty("realpath");
            owner.qualname = o.string_or_empty("qualname");
            owner.pybind11 = o.boolean_or("pybind11", false);
            owner.identity = o.identity();
        }
        return out;
    }

private:
    /// A stack's frame: whole, and numbered or not, or the number of one the journal has had.
    Frame frame(const Value& item) const
    {
        if (item.IsNumber()) {
            const Frame& known = frame_table().at(to_integer<std::uint32_t>(item, "a frame number"));
            frame_table().charge(known);
            return known;
        }
        const Fields f(item, "a frame");
        Frame frame;
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
        return frame;
    }

    const Value& array(std::string_view key) const
    {
        const Value& value = at(key);
        if (!value.IsArray())
            bad_field(key, "is not an array");
        return value;
    }

    FrameTable& frame_table() const
    {
        if (!m_frames)
            throw std::logic_error("frames are read from an event's own fields only");
        return *m_frames;
    }

    const Value& m_object;
    FrameTable* m_frames; ///< the line's journal's; null in the objects nested in a line
};

/// The fields every event but the process start has.
template <typename E>
E stamped(const Fields& j)
{
    E e;
    e.pid = j.integer<int>("pid");
    e.seq = j.integer<std::uint64_t>("seq");
    e.mono_ns = j.integer<std::int64_t>("t");
    return e;
}

Event process_start(const Fields& j)
{
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

Event import_begin(const Fields& j)
{
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
    e.stdlib = j.boolean_or("stdlib", false);
    return e;
}

Event import_end(const Fields& j)
{
    auto e = stamped<ImportEnd>(j);
    e.id = j.integer<std::uint64_t>("id");
    if (j.find("error"))
        e.error = j.exception("error");
    if (j.find("warnings"))
        e.warnings = j.strings("warnings");
    e.existing_module = j.string_or_empty("existing");
    return e;
}

Event extension_load(const Fields& j)
{
    auto e = stamped<ExtensionLoad>(j);
    e.name = j.string("name");
    e.path = j.string("path");
    e.realpath = j.string_or_empty("realpath");
    e.identity = j.identity();
    e.stack = j.frames("stack");
    e.exports_init = !j.boolean_or("no_init", false);
    return e;
}

Event uncaught(const Fields& j)
{
    auto e = stamped<UncaughtException>(j);
    e.exception = j.exception("exception");
    return e;
}

Event process_end(const Fields& j)
{
    auto e = stamped<ProcessEnd>(j);
    e.wall_ns = j.integer<std::int64_t>("wall_ns");
    e.how = j.string("how");
    e.code = j.integer<int>("code");
    return e;
}

Event program_start(const Fields& j)
{
    auto e = stamped<ProgramStart>(j);
    e.via = j.string("via");
    e.executable = j.string_or_empty("executable");
    e.argv = j.strings("argv");
    e.env = j.string_or_empty("env");
    return e;
}

Event alias_seen(const Fields& j)
{
    auto e = stamped<AliasSeen>(j);
    e.key = j.string("key");
    e.module_name = j.string("module");
    e.file = j.string_or_empty("file");
    e.stack = j.frames("stack");
    return e;
}

Event type_owners(const Fields& j)
{
    auto e = stamped<TypeOwners>(j);
    e.type_name = j.string("type");
    e.owners = j.owners("owners");
    return e;
}

Event installation(const Fields& j)
{
    auto e = stamped<Installation>(j);
    e.name = j.string("name");
    e.origin = j.string_or_empty("origin");
    if (j.find("shadowed"))
        e.shadowed = j.strings("shadowed");
    return e;
}

Event no_build(const Fields& j)
{
    auto e = stamped<NoBuild>(j);
    e.name = j.string("name");
    e.files = j.strings("files");
    e.suffixes = j.strings("suffixes");
    e.stack = j.frames("stack");
    return e;
}

Event caught(const Fields& j)
{
    auto e = stamped<Caught>(j);
    e.id = j.integer<std::uint64_t>("id");
    e.frame = j.whole_frame("frame");
    return e;
}

Event worker(const Fields& j)
{
    auto e = stamped<WorkerProcess>(j);
    e.name = j.string("name");
    e.target = j.string_or_empty("target");
    return e;
}

Event note(const Fields& j)
{
    auto e = stamped<Note>(j);
    e.text = j.string("text");
    return e;
}

/// Each event's "ev" and its reader (docs/journal-format.md).
constexpr std::array<std::pair<std::string_view, Event (*)(const Fields&)>, 14> k_decoders{{
    {"process", process_start},
    {"begin", import_begin},
    {"end", import_end},
    {"ext", extension_load},
    {"uncaught", uncaught},
    {"exit", process_end},
    {"program", program_start},
    {"alias", alias_seen},
    {"type_owners", type_owners},
    {"installation", installation},
    {"no_build", no_build},
    {"caught", caught},
    {"worker", worker},
    {"note", note},
}};

Event decode_object(const Fields& j)
{
    const std::string tag = j.string("ev");
    for (const auto& [name, decoder] : k_decoders)
        if (name == tag)
            return decoder(j);
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
    // The line's UTF-8 is checked first, as a whole (ASCII, nearly every line, at a glance), and
    // the line is parsed as a C string: RapidJSON's own check, character by character through a
    // bounded stream, would cost more than the rest of the parse. The copy, the parser's memory
    // and the document are kept per thread, from one line to the next: a line needs no allocation.
    thread_local std::string text;
    if (valid_utf8(line, text).data() != line.data())
        throw std::invalid_argument("not JSON: the line is not valid UTF-8");
    if (line.find('\0') != std::string_view::npos)
        throw std::invalid_argument("not JSON: the line holds a NUL byte");
    text.assign(line);
    alignas(std::max_align_t) thread_local std::array<char, 16384> value_memory; // holds the pool's headers
    alignas(std::max_align_t) thread_local std::array<char, 4096> parse_memory;
    rapidjson::MemoryPoolAllocator<> values(value_memory.data(), value_memory.size());
    rapidjson::MemoryPoolAllocator<> parse_stack(parse_memory.data(), parse_memory.size());
    rapidjson::GenericDocument<rapidjson::UTF8<>, rapidjson::MemoryPoolAllocator<>, rapidjson::MemoryPoolAllocator<>>
        document(&values, parse_memory.size(), &parse_stack);
    document.Parse<rapidjson::kParseIterativeFlag>(text.c_str());
    if (document.HasParseError())
        throw std::invalid_argument(fmt::format("not JSON: {} (at byte {})",
                                                rapidjson::GetParseError_En(document.GetParseError()),
                                                document.GetErrorOffset()));
    return decode_object(Fields(document, "the line", &frames));
}

Event decode(std::string_view line)
{
    FrameTable frames;
    return decode(line, frames);
}

} // namespace importscope::journal
