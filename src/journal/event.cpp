// Events as JSON, for people (`importscope journal dump`): each one compact object written by
// util/json_writer.hpp's writer, walking its `fields` declaration; and the nlohmann conversions of the
// records reports hold.

#include "importscope/journal/event.hpp"

#include "importscope/util/json_fields.hpp"
#include "importscope/util/json_writer.hpp"
#include "importscope/util/utf8.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <type_traits>

namespace importscope::journal {

using nlohmann::json;

void to_json(json& j, const Frame& frame)
{
    json_fields::to_json(j, frame);
}

void to_json(json& j, const ExceptionInfo& exception)
{
    json_fields::to_json(j, exception);
}

void from_json(const json& j, Frame& frame)
{
    frame = Frame{};
    json_fields::from_json(j, frame);
}

void from_json(const json& j, ExceptionInfo& exception)
{
    exception = ExceptionInfo{};
    json_fields::from_json(j, exception);
}

namespace {

/// Writes an event as one compact JSON object, `ev` first and then the fields its `fields` declares,
/// as json_fields.hpp's writer would (an `optional` one left out when empty), straight into the
/// text: a dump of a long journal makes no JSON tree per event.
class Encoder {
public:
    explicit Encoder(json_writer::Writer& writer) : m_json(writer) {}

    template <typename E>
    void operator()(const E& event)
    {
        m_json.start_object();
        key("ev");
        string(E::ev);
        E::fields(*this, event);
        m_json.end_object();
    }

    template <typename T>
    void required(std::string_view name, const T& value)
    {
        key(name);
        write(value);
    }
    template <typename T>
    void field(std::string_view name, const T& value)
    {
        key(name);
        write(value);
    }
    template <typename T>
    void optional(std::string_view name, const std::optional<T>& value)
    {
        if (value)
            field(name, *value);
    }
    template <typename T>
    void nullable(std::string_view name, const std::optional<T>& value)
    {
        key(name);
        if (value)
            write(*value);
        else
            m_json.null();
    }

private:
    void key(std::string_view name) { m_json.literal_key(name); }
    void string(std::string_view value)
    {
        const std::string_view valid = valid_utf8(value, m_scratch);
        m_json.string(valid);
    }

    void write(const std::string& value) { string(value); }
    void write(bool value) { m_json.boolean(value); }
    template <typename Integer>
        requires std::is_integral_v<Integer>
    void write(Integer value)
    {
        m_json.number(value);
    }
    /// A stack's frame that the journal holds already is written as its number alone; a numbered
    /// one whole, its number (`id`) first.
    void write(const Frame& frame)
    {
        if (frame.known) {
            m_json.number(frame.number);
            return;
        }
        m_json.start_object();
        if (frame.number != 0)
            field("id", frame.number);
        Frame::fields(*this, frame);
        m_json.end_object();
    }
    template <typename T>
    void write(const std::vector<T>& values)
    {
        m_json.start_array();
        for (const auto& value : values)
            write(value);
        m_json.end_array();
    }
    template <typename T>
        requires std::is_class_v<T>
    void write(const T& value)
    {
        object(value);
    }
    template <typename T>
    void object(const T& value)
    {
        m_json.start_object();
        T::fields(*this, value);
        m_json.end_object();
    }

    json_writer::Writer& m_json;
    std::string m_scratch; ///< a string's valid UTF-8, when it was not
};

} // namespace

std::string encode_json(const Event& event)
{
    std::string text;
    json_writer::Writer writer(text);
    Encoder encoder(writer);
    std::visit(encoder, event);
    return text;
}

} // namespace importscope::journal
