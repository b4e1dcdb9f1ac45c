#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

/// JSON for plain records that declare their fields once, in a static `fields(f, record)`: each field
/// with its key and how it is read and written. `to_json` and `from_json` both walk that declaration,
/// so a record's JSON form has one definition; a namespace of such records brings them in with
/// `using json_fields::to_json; using json_fields::from_json;`, where nlohmann's look-up finds them.
///
///  - `required(key, m)`: always written; a record without it is refused, naming the key.
///  - `field(key, m)`: always written; missing reads as the member's default.
///  - `optional(key, m)` (a std::optional): left out when empty; missing or null reads as empty.
///  - `nullable(key, m)` (a std::optional): null when empty; missing or null reads as empty.
///  - `optional_nullable(key, m)` (a std::optional of a std::optional): left out when empty, null
///    when it holds an empty one; missing reads as empty, null as holding an empty one. For a key
///    that records of an older version lack and this one writes as null or a value.
///  - `tagged(key, m, tag)`: always there, like `required`; its type depends on a field read before
///    it (a finding's evidence on its kind): read by `read_tagged(value, m, tag, path)`, declared
///    beside the member's type, and written by its `to_json`.
///  - `rest(m)`, declared last: the object's other keys, kept as they were.
///
/// What is wrong is said as std::invalid_argument: "findings[2] has no \"kind\"",
/// "run.exit.code has the wrong type", "processes[0] is not an object".
namespace importscope::json_fields {

class Reader;

/// A record that declares its fields.
template <typename T>
concept Declared = requires(Reader& reader, T& record)
{
    T::fields(reader, record);
};

template <typename T>
struct IsVector : std::false_type {
};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {
};

/// A vector of such records, read one by one with each one's place in what is thrown.
template <typename T>
concept DeclaredVector = IsVector<T>::value && Declared<typename T::value_type>;

template <Declared T>
void read_record(const nlohmann::json& value, T& record, const std::string& path);

template <typename T>
struct IsOptional : std::false_type {
};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {
};

template <typename T>
concept Integer = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// A number read into an integer member is one JSON integer that the member holds exactly: never
/// a 2^64 read as INT_MIN, a 2^63 pid as 0 or 1.5 as 1. What is thrown names the field.
template <Integer I>
void check_integer(const nlohmann::json& value, const std::string& where)
{
    if (!value.is_number())
        return; // get_to says it has the wrong type
    const bool fits = value.is_number_unsigned() ? std::in_range<I>(value.get<std::uint64_t>())
                      : value.is_number_integer() ? std::in_range<I>(value.get<std::int64_t>())
                                                  : false;
    if (!fits)
        throw std::invalid_argument(fmt::format("{} is {}, not an integer from {} to {}", where, value.dump(),
                                                std::numeric_limits<I>::min(), std::numeric_limits<I>::max()));
}

/// An integer, or an optional or a vector of integers: the integer type, else void.
template <typename M>
struct IntegerIn {
    using type = void;
};
template <Integer I>
struct IntegerIn<I> {
    using type = I;
};
template <Integer I>
struct IntegerIn<std::optional<I>> {
    using type = I;
};
template <Integer I, typename A>
struct IntegerIn<std::vector<I, A>> {
    using type = I;
};

/// check_integer for an integer member, an optional one that is not null, or each of a vector's.
template <typename M>
void check_number_fits(const nlohmann::json& value, const std::string& where)
{
    using I = typename IntegerIn<M>::type;
    if constexpr (std::is_void_v<I>) {
        return;
    } else if constexpr (IsVector<M>::value) {
        if (value.is_array())
            for (std::size_t i = 0; i < value.size(); ++i)
                check_integer<I>(value[i], fmt::format("{}[{}]", where, i));
    } else if (!value.is_null()) {
        check_integer<I>(value, where);
    }
}

/// Writes each declared field into a JSON object.
class Writer {
public:
    explicit Writer(nlohmann::json& out) : m_out(out) {}

    template <typename M>
    void required(const char* key, const M& member)
    {
        m_out[key] = member;
    }
    template <typename M>
    void field(const char* key, const M& member)
    {
        m_out[key] = member;
    }
    template <typename M>
    void optional(const char* key, const std::optional<M>& member)
    {
        if (member)
            m_out[key] = *member;
    }
    template <typename M>
    void nullable(const char* key, const std::optional<M>& member)
    {
        m_out[key] = member ? nlohmann::json(*member) : nlohmann::json(nullptr);
    }
    template <typename M>
    void optional_nullable(const char* key, const std::optional<std::optional<M>>& member)
    {
        if (member)
            nullable(key, *member);
    }
    template <typename M, typename Tag>
    void tagged(const char* key, const M& member, const Tag& /*tag*/)
    {
        m_out[key] = member;
    }
    void rest(const nlohmann::json& member)
    {
        if (member.is_object())
            for (const auto& [key, value] : member.items())
                m_out[key] = value;
    }

private:
    nlohmann::json& m_out;
};

/// Reads each declared field out of a JSON object; `path` names the object in what it throws.
class Reader {
public:
    Reader(const nlohmann::json& in, const std::string& path) : m_in(in), m_path(path) {}

    template <typename M>
    void required(const char* key, M& member)
    {
        const nlohmann::json* value = find(key);
        if (!value)
            throw std::invalid_argument(fmt::format("{} has no \"{}\"", m_path.empty() ? "it" : m_path, key));
        read(key, *value, member);
    }
    template <typename M>
    void field(const char* key, M& member)
    {
        if (const nlohmann::json* value = find(key))
            read(key, *value, member);
    }
    template <typename M>
    void optional(const char* key, std::optional<M>& member)
    {
        member.reset();
        if (const nlohmann::json* value = find(key); value && !value->is_null())
            read(key, *value, member.emplace());
    }
    template <typename M>
    void nullable(const char* key, std::optional<M>& member)
    {
        optional(key, member);
    }
    template <typename M>
    void optional_nullable(const char* key, std::optional<std::optional<M>>& member)
    {
        member.reset();
        if (const nlohmann::json* value = find(key)) {
            std::optional<M>& inner = member.emplace();
            if (!value->is_null())
                read(key, *value, inner.emplace());
        }
    }
    template <typename M, typename Tag>
    void tagged(const char* key, M& member, const Tag& tag)
    {
        const nlohmann::json* value = find(key);
        if (!value)
            throw std::invalid_argument(fmt::format("{} has no \"{}\"", m_path.empty() ? "it" : m_path, key));
        read_tagged(*value, member, tag, child(key));
    }
    void rest(nlohmann::json& member)
    {
        member = nlohmann::json::object();
        for (const auto& [key, value] : m_in.items())
            if (std::find(m_keys.begin(), m_keys.end(), key) == m_keys.end())
                member[key] = value;
    }

private:
    const nlohmann::json* find(const char* key)
    {
        m_keys.emplace_back(key);
        const auto it = m_in.find(key);
        return it == m_in.end() ? nullptr : &*it;
    }

    std::string child(const char* key) const { return m_path.empty() ? key : fmt::format("{}.{}", m_path, key); }

    template <typename M>
    void read(const char* key, const nlohmann::json& value, M& member) const
    {
        if constexpr (Declared<M>) {
            if (!value.is_object()) // as a field of any other type says it
                throw std::invalid_argument(fmt::format("{} has the wrong type", child(key)));
            read_record(value, member, child(key));
        } else if constexpr (DeclaredVector<M>) {
            if (!value.is_array())
                throw std::invalid_argument(fmt::format("{} has the wrong type", child(key)));
            member.assign(value.size(), {});
            for (std::size_t i = 0; i < value.size(); ++i)
                read_record(value[i], member[i], fmt::format("{}[{}]", child(key), i));
        } else {
            check_number_fits<M>(value, child(key));
            try {
                value.get_to(member);
            } catch (const nlohmann::json::type_error&) {
                throw std::invalid_argument(fmt::format("{} has the wrong type", child(key)));
            }
        }
    }

    const nlohmann::json& m_in;
    const std::string& m_path;
    std::vector<std::string_view> m_keys; ///< the keys declared so far, which rest() leaves out
};

template <Declared T>
void read_record(const nlohmann::json& value, T& record, const std::string& path)
{
    if (!value.is_object())
        throw std::invalid_argument(fmt::format("{} is not an object", path.empty() ? "it" : path));
    Reader reader(value, path);
    T::fields(reader, record);
}

template <Declared T>
void to_json(nlohmann::json& j, const T& record)
{
    j = nlohmann::json::object();
    Writer writer(j);
    T::fields(writer, record);
}

template <Declared T>
void from_json(const nlohmann::json& j, T& record)
{
    read_record(j, record, {});
}

} // namespace importscope::json_fields
