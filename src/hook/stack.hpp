#pragma once

#include "importscope/journal/event.hpp"

#include <cstddef>
#include <vector>

namespace importscope::hook {

/// The Python stack of the running thread, innermost last as in a traceback, without the import
/// machinery's own frames, so that back() is the line that asked for the import; at most
/// `max_frames` of the innermost frames. Needs the GIL.
/// Frames that the process's journal holds already come by number alone (journal::Frame::known);
/// the others carry the number that later stacks will use, once stack_written() says so.
std::vector<journal::Frame> capture_import_stack(std::size_t max_frames = 32);

/// The event with the stack captured last is in the journal: its new frames can be given by number.
/// Not called (the event was not written), the next capture numbers them again.
void stack_written();

} // namespace importscope::hook
