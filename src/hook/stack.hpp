#pragma once

#include "importscope/journal/event.hpp"

#include <cstddef>
#include <vector>

namespace importscope::hook {

/// The Python stack of the running thread, innermost last as in a traceback, without the import
/// machinery's own frames, so that back() is the line that asked for the import; at most
/// `max_frames` of the innermost frames. Needs the GIL.
std::vector<journal::Frame> capture_import_stack(std::size_t max_frames = 32);

} // namespace importscope::hook
