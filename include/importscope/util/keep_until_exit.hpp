#pragma once

#include <memory>

namespace importscope {

namespace detail {

/// What keep_until_exit() holds: a chain from one static pointer, so that all of it stays
/// reachable (a leak checker does not report it) and none of it is ever destroyed.
struct Kept {
    virtual ~Kept() = default;
    Kept* next = nullptr;
};

void keep(Kept* kept);

template <typename T>
struct KeptValue final : Kept {
    explicit KeptValue(T&& v) : value(std::move(v)) {}
    T value;
};

} // namespace detail

/// Keeps `value` alive until the process ends, without destroying it. For the run's large
/// structures once the report is out: freeing tens of thousands of records one by one just before
/// exit would only delay the exit status that a CI job waits for (compilers do the same: clang's
/// -disable-free). Only what owns memory alone belongs here, nothing with an effect to undo.
template <typename T>
void keep_until_exit(T&& value)
{
    detail::keep(new detail::KeptValue<T>(std::forward<T>(value))); // NOLINT(cppcoreguidelines-owning-memory)
}

} // namespace importscope
