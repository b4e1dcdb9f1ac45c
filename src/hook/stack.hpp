#pragma once

#include "importscope/journal/event.hpp"

#include <cstddef>
#include <vector>

namespace importscope::hook {

/// The Python stack of the running thread, innermost last as in a traceback, without the import
/// machinery's own frames, so that back() is the line that asked for the import; at most
/// `max_frames` of the innermost frames. Needs the GIL.
/// Frames that the process's journal holds already come by number alone (journal::Frame::known);
/// the others carry the number that later stacks will use, once append_with_stack() wrote them.
std::vector<journal::Frame> capture_import_stack(std::size_t max_frames = 32);
/// The same into `stack`, whose frames' strings' buffers are used again (an import's begin event
/// kept from one import to the next costs no allocation).
void capture_import_stack_into(std::vector<journal::Frame>& stack, std::size_t max_frames = 32);

/// The Python stack of the running thread, innermost last, without importlib's frozen bootstrap
/// frames (importlib's public entry points are kept, unlike in capture_import_stack()), at most
/// `max_frames` of the innermost; every frame whole and unnumbered, so that it can be kept and put
/// into a later event. Needs the GIL.
std::vector<journal::Frame> capture_plain_stack(std::size_t max_frames = 8);

/// Appends the event that holds the stack captured last (JournalWriter::append) and, once it is in
/// the journal, lets later stacks give its new frames by number; an event not written leaves them
/// to be numbered again. True when it was written.
bool append_with_stack(const journal::Event& event);
/// The same for an import's begin, written as it is (not moved into an Event first).
bool append_with_stack(const journal::ImportBegin& event);

} // namespace importscope::hook
