#pragma once

#include <cstdint>
#include <ctime>

namespace importscope {

/// A timespec in nanoseconds: a clock's reading, or a file's time (stat's st_mtim).
inline std::int64_t nanoseconds_of(const timespec& ts) noexcept
{
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// CLOCK_MONOTONIC in nanoseconds: durations and event order within a machine.
inline std::int64_t monotonic_ns() noexcept
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return nanoseconds_of(ts);
}

/// CLOCK_REALTIME in nanoseconds since the epoch: the times a report shows, and files' times.
inline std::int64_t wall_ns() noexcept
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return nanoseconds_of(ts);
}

} // namespace importscope
