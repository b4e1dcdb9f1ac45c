#pragma once

#include <cstdint>
#include <ctime>

namespace importscope {

/// CLOCK_MONOTONIC in nanoseconds: durations and event order within a machine.
inline std::int64_t monotonic_ns() noexcept
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// CLOCK_REALTIME in nanoseconds since the epoch: the times a report shows.
inline std::int64_t wall_ns() noexcept
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

} // namespace importscope
