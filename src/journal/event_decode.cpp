// decode(): one journal line back into its event. RapidJSON parses the line (strictly: valid
// UTF-8, nothing after the object, iteratively so that no nesting runs the stack out), and the
// event type its "ev" names reads its fields by the declaration that writes them (`describe`).

#include "importscope/journal/event.hpp"
#include "importscope/util/utf8.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

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

/// Reads a parsed JSON object's members into a value by walking the value type's `describe`
/// (event.hpp), the declaration that the writer walks too.
class Decoder {
public:
    /// `frames`: the line's journal's numbered frames; null in the objects nested in a line.
    Decoder(const Value& object, FrameTable* frames) : m_object(object), m_frames(frames) {}

    template <typename T>
    void required(std::string_view key, T& out) const
    {
        const Value* value = find(key);
        if (!value)
            bad_field(key, "is missing");
        read(*value, key, out);
    }
    template <typename T>
    void optional(std::string_view key, T& out) const
    {
        const Value* value = find(key);
        if (value && !value->IsNull())
            read(*value, key, out);
    }
    /// dev and ino together, or nothing.
    void identity(std::optional<FileIdentity>& out) const
    {
        const Value* dev = find("dev");
        const Value* ino = find("ino");
        if (dev && ino)
            out = FileIdentity{to_integer<std::uint64_t>(*dev, "dev"), to_integer<std::uint64_t>(*ino, "ino")};
    }

    /// The value of the first member of that name, or null.
    const Value* find(std::string_view key) const
    {
        const auto it = m_object.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
        return it == m_object.MemberEnd() ? nullptr : &it->value;
    }

private:
    static void read(const Value& value, std::string_view key, std::string& out) { out = take_string(value, key); }
    static void read(const Value& value, std::string_view key, bool& out)
    {
        if (!value.IsBool())
            bad_field(key, "is not a boolean");
        out = value.GetBool();
    }
    template <typename Integer>
        requires std::is_integral_v<Integer>
    static void read(const Value& value, std::string_view key, Integer& out)
    {
        out = to_integer<Integer>(value, key);
    }
    /// A frame on its own, not in a stack: written whole, and not numbered.
    static void read(const Value& value, std::string_view key, Frame& out)
    {
        if (!value.IsObject())
            bad_field(key, "is not a frame");
        nested(value, key, out);
        if (out.number != 0)
            bad_field(key, "is numbered, and only a stack's frames are");
    }
    /// A stack: each frame whole, and numbered or not, or the number of one the journal has had.
    void read(const Value& value, std::string_view key, std::vector<Frame>& out) const
    {
        const auto items = array(value, key);
        out.reserve(std::min<std::size_t>(items.Size(), FrameTable::k_max_stack));
        for (const Value& item : items) {
            if (out.size() == FrameTable::k_max_stack)
                bad_field(key, "has more frames than a stack can (FrameTable::k_max_stack)");
            if (item.IsNumber()) {
                const Frame& known = frame_table().at(to_integer<std::uint32_t>(item, "a frame number"));
                frame_table().charge(known);
                out.push_back(known);
                continue;
            }
            Frame& frame = out.emplace_back();
            nested(item, key, frame);
            if (frame.number != 0)
                frame_table().define(frame);
        }
    }
    template <typename T>
    void read(const Value& value, std::string_view key, std::optional<T>& out) const
    {
        read(value, key, out.emplace());
    }
    template <typename T>
    void read(const Value& value, std::string_view key, std::vector<T>& out) const
    {
        for (const Value& item : array(value, key))
            read(item, key, out.emplace_back());
    }
    template <typename T>
        requires std::is_class_v<T>
    static void read(const Value& value, std::string_view key, T& out)
    {
        nested(value, key, out);
    }

    template <typename T>
    static void nested(const Value& value, std::string_view key, T& out)
    {
        if (!value.IsObject())
            bad_field(key, "holds what is not a JSON object");
        const Decoder fields(value, nullptr);
        T::describe(fields, out);
    }

    static rapidjson::Value::ConstArray array(const Value& value, std::string_view key)
    {
        if (!value.IsArray())
            bad_field(key, "is not an array");
        return value.GetArray();
    }

    FrameTable& frame_table() const
    {
        if (!m_frames)
            throw std::logic_error("frames are read from an event's own fields only");
        return *m_frames;
    }

    const Value& m_object;
    FrameTable* m_frames;
};

template <typename E>
Event decode_as(const Decoder& j)
{
    E e;
    if constexpr (std::is_same_v<E, ProcessStart>) {
        // The format first: a journal of a newer format is named so, not by a field it lacks.
        j.required("format", e.format);
        if (e.format < k_oldest_format_version || e.format > k_format_version)
            throw std::invalid_argument("journal format " + std::to_string(e.format) + " is not supported");
    }
    E::describe(j, e);
    return e;
}

using EventReader = Event (*)(const Decoder&);

/// Each event type's `ev` and its reader, made from the variant's own list.
template <std::size_t... I>
constexpr auto event_readers(std::index_sequence<I...>)
{
    return std::array<std::pair<std::string_view, EventReader>, sizeof...(I)>{
        {{std::variant_alternative_t<I, Event>::ev, &decode_as<std::variant_alternative_t<I, Event>>}...}};
}
constexpr auto k_event_readers = event_readers(std::make_index_sequence<std::variant_size_v<Event>>{});

Event decode_object(const Decoder& j)
{
    std::string tag;
    j.required("ev", tag);
    for (const auto& [name, reader] : k_event_readers)
        if (name == tag)
            return reader(j);
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
    // The line's UTF-8 is checked first, as a whole (ASCII, nearly every line, at a glance), and a
    // copy of the line is parsed as a C string: RapidJSON's own check, character by character
    // through a bounded stream, would cost more than the rest of the parse. The copy, the parser's
    // memory and the document are kept per thread, from one line to the next: a line needs no
    // allocation.
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
    // In place: the strings stay in the copy, which outlives the document, and are copied once,
    // into the event.
    document.ParseInsitu<rapidjson::kParseIterativeFlag>(text.data());
    if (document.HasParseError())
        throw std::invalid_argument(fmt::format("not JSON: {} (at byte {})",
                                                rapidjson::GetParseError_En(document.GetParseError()),
                                                document.GetErrorOffset()));
    if (!document.IsObject())
        throw std::invalid_argument("the line is not a JSON object");
    return decode_object(Decoder(document, &frames));
}

Event decode(std::string_view line)
{
    FrameTable frames;
    return decode(line, frames);
}

} // namespace importscope::journal
