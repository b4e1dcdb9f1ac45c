// The journal's binary records: an event's fields in the order its `fields` declares them,
// without names. Both sides are one build on one machine, so numbers are in its byte order; the
// reader still checks every length, since a journal can be cut short, or the target's own code
// write into it.

#include "importscope/journal/event.hpp"
#include "importscope/journal/record_format.hpp"
#include "importscope/util/utf8.hpp"

#include <array>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

namespace importscope::journal {

namespace {

using Count = std::uint32_t; ///< the length of a string, or of a list

/// The index of `E` in Event: a record's first byte.
template <typename E, std::size_t I = 0>
constexpr std::uint8_t index_of()
{
    static_assert(I < std::variant_size_v<Event>, "not an event type");
    if constexpr (std::is_same_v<std::variant_alternative_t<I, Event>, E>)
        return I;
    else
        return index_of<E, I + 1>();
}
static_assert(std::variant_size_v<Event> < 256);

/// Appends an event's fields to a record: a std::string, or a FixedBuffer where nothing may allocate.
template <typename Out>
class RecordEncoder {
public:
    explicit RecordEncoder(Out& out) : m_out(out) {}

    template <typename T>
    void required(std::string_view, const T& value)
    {
        write(value);
    }
    template <typename T>
    void field(std::string_view, const T& value)
    {
        write(value);
    }
    template <typename T>
    void optional(std::string_view, const std::optional<T>& value)
    {
        write(value);
    }
    template <typename T>
    void nullable(std::string_view, const std::optional<T>& value)
    {
        write(value);
    }

    template <typename T>
        requires std::is_arithmetic_v<T>
    void write(T value)
    {
        m_out.append(reinterpret_cast<const char*>(&value), sizeof value);
    }
    /// Kept out of line: inlined into every string field's caller, it leaves GCC too little room to
    /// inline std::string::append into them (an import's begin, 5,000-module tree, callgrind: 1,204
    /// instructions to encode, 1,118 so).
    [[gnu::noinline]] void write(std::string_view value)
    {
        write(static_cast<Count>(value.size()));
        m_out.append(value.data(), value.size());
    }
    void write(const std::string& value) { write(std::string_view(value)); }
    /// A stack: each frame's number, then its fields, or the number alone of one the journal holds
    /// already.
    void write(const std::vector<Frame>& stack)
    {
        write(static_cast<Count>(stack.size()));
        for (const Frame& frame : stack) {
            write(frame.known);
            write(frame.number);
            if (!frame.known)
                Frame::fields(*this, frame);
        }
    }
    template <typename T>
    void write(const std::optional<T>& value)
    {
        write(value.has_value());
        if (value)
            write(*value);
    }
    template <typename T>
    void write(const std::vector<T>& values)
    {
        write(static_cast<Count>(values.size()));
        for (const T& value : values)
            write(value);
    }
    template <typename T>
        requires std::is_class_v<T>
    void write(const T& value)
    {
        T::fields(*this, value);
    }

private:
    Out& m_out;
};

[[noreturn]] void bad_record(std::string_view key, const char* problem)
{
    throw std::invalid_argument("record field \"" + std::string(key) + "\" " + problem);
}

/// Reads a record's fields back, each checked against what is left of the record.
class RecordDecoder {
public:
    /// `frames`: the journal's numbered frames; null to keep a frame given by number as written.
    RecordDecoder(std::string_view record, FrameTable* frames, KnownFrames known)
        : m_rest(record), m_frames(frames), m_known(known)
    {
    }

    template <typename T>
    void required(std::string_view key, T& out)
    {
        read(key, out);
    }
    template <typename T>
    void field(std::string_view key, T& out)
    {
        read(key, out);
    }
    template <typename T>
    void optional(std::string_view key, std::optional<T>& out)
    {
        read(key, out);
    }
    template <typename T>
    void nullable(std::string_view key, std::optional<T>& out)
    {
        read(key, out);
    }

    template <typename T>
        requires std::is_arithmetic_v<T>
    void read(std::string_view key, T& out)
    {
        if constexpr (std::is_same_v<T, bool>) {
            const std::uint8_t byte = take<std::uint8_t>(key);
            if (byte > 1)
                bad_record(key, "is not a boolean");
            out = byte == 1;
        } else {
            out = take<T>(key);
        }
    }
    void read(std::string_view key, std::string& out)
    {
        const std::string_view text = take_bytes(key, take<Count>(key));
        if (valid_utf8(text, out).data() == text.data()) // else `out` holds the text repaired
            out.assign(text);
    }
    void read(std::string_view key, std::vector<Frame>& stack)
    {
        const Count size = take<Count>(key);
        if (size > FrameTable::k_max_stack)
            bad_record(key, "has more frames than a stack can (FrameTable::k_max_stack)");
        stack.reserve(std::min<std::size_t>(size, m_rest.size() / k_least_frame_bytes));
        for (Count i = 0; i < size; ++i) {
            bool known = false;
            read(key, known);
            std::uint32_t number = 0;
            read(key, number);
            if (known)
                read_known(number, stack);
            else
                read_whole(number, stack);
        }
    }
    template <typename T>
    void read(std::string_view key, std::optional<T>& out)
    {
        bool present = false;
        read(key, present);
        if (present)
            read(key, out.emplace());
    }
    template <typename T>
    void read(std::string_view key, std::vector<T>& out)
    {
        const Count size = take<Count>(key);
        if (size > m_rest.size()) // every item takes a byte at least
            bad_record(key, "holds more items than the record has bytes");
        for (Count i = 0; i < size; ++i)
            read(key, out.emplace_back());
    }
    template <typename T>
        requires std::is_class_v<T>
    void read(std::string_view, T& out)
    {
        T::fields(*this, out);
    }

    bool at_end() const { return m_rest.empty(); }

private:
    template <typename T>
    T take(std::string_view key)
    {
        T value;
        std::memcpy(&value, take_bytes(key, sizeof value).data(), sizeof value);
        return value;
    }
    std::string_view take_bytes(std::string_view key, std::size_t size)
    {
        if (size > m_rest.size())
            bad_record(key, "runs past the record's end");
        const std::string_view bytes = m_rest.substr(0, size);
        m_rest.remove_prefix(size);
        return bytes;
    }
    void read_known(std::uint32_t number, std::vector<Frame>& stack)
    {
        if (m_frames) {
            const Frame& known = m_frames->at(number);
            m_frames->charge(known); // what a reader that copies it would hold
            if (m_known == KnownFrames::whole) {
                stack.push_back(known);
                return;
            }
        }
        Frame& frame = stack.emplace_back();
        frame.number = number;
        frame.known = true;
    }
    void read_whole(std::uint32_t number, std::vector<Frame>& stack)
    {
        Frame& frame = stack.emplace_back();
        frame.number = number;
        Frame::fields(*this, frame);
        if (frame.number == 0 || !m_frames)
            return;
        if (m_known == KnownFrames::whole) {
            m_frames->define(frame);
            return;
        }
        m_frames->define(std::move(frame)); // the stack names it as a later one would
        frame = Frame{};
        frame.number = number;
        frame.known = true;
    }

    /// The fewest bytes a frame of a stack takes: its `known` byte and its number.
    static constexpr std::size_t k_least_frame_bytes = 1 + sizeof(std::uint32_t);

    std::string_view m_rest;
    FrameTable* m_frames;
    KnownFrames m_known;
};

/// The record of one event type `E`, appended: its type's byte, then the fields of `event` (an E,
/// or a value with the same fields).
template <typename E, typename Out, typename Fields>
void append_record(Out& record, const Fields& event)
{
    record.push_back(static_cast<char>(index_of<E>()));
    RecordEncoder<Out> fields(record);
    E::fields(fields, event);
}

template <typename E>
Event decode_as(RecordDecoder& fields)
{
    E e;
    E::fields(fields, e);
    if constexpr (std::is_same_v<E, ProcessStart>)
        if (e.format != k_format_version)
            throw std::invalid_argument("journal format " + std::to_string(e.format) +
                                        " is not supported (this importscope reads format " +
                                        std::to_string(k_format_version) + ")");
    return e;
}

using RecordReader = Event (*)(RecordDecoder&);

template <std::size_t... I>
constexpr auto record_readers(std::index_sequence<I...>)
{
    return std::array<RecordReader, sizeof...(I)>{&decode_as<std::variant_alternative_t<I, Event>>...};
}
constexpr auto k_record_readers = record_readers(std::make_index_sequence<std::variant_size_v<Event>>{});

} // namespace

void encode_record_to(std::string& record, const Event& event)
{
    std::visit([&](const auto& e) { append_record<std::decay_t<decltype(e)>>(record, e); }, event);
}

void encode_record_to(std::string& record, const ImportBegin& event)
{
    append_record<ImportBegin>(record, event);
}

void encode_end_record(EndRecord& record, const ProcessEndView& end) noexcept
{
    start_record(record);
    append_record<ProcessEnd>(record, end);
    finish_record(record);
}

Event decode_record(std::string_view record, FrameTable* frames, KnownFrames known)
{
    if (record.empty())
        throw std::invalid_argument("the record is empty");
    const auto index = static_cast<std::uint8_t>(record.front());
    if (index >= k_record_readers.size())
        throw std::invalid_argument("unknown event type " + std::to_string(index) + " in a record");
    RecordDecoder fields(record.substr(1), frames, known);
    Event event = k_record_readers[index](fields);
    if (!fields.at_end())
        throw std::invalid_argument("the record has bytes after its last field");
    return event;
}

} // namespace importscope::journal
