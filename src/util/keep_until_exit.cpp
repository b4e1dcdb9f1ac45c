#include "importscope/util/keep_until_exit.hpp"

#include <mutex>

namespace importscope::detail {

namespace {

std::mutex g_kept_mutex;
Kept* g_kept = nullptr; // the newest; never freed (see keep_until_exit)

} // namespace

void keep(Kept* kept)
{
    const std::lock_guard<std::mutex> lock(g_kept_mutex);
    kept->next = g_kept;
    g_kept = kept;
}

} // namespace importscope::detail
