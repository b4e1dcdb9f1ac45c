#pragma once

#include "importscope/journal/event.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace importscope::journal {

/// Follows the journals of a run directory while the run goes on: each poll() returns the events
/// completed since the last one (a line still being written waits for its newline).
class JournalTail {
public:
    explicit JournalTail(std::filesystem::path run_dir) : m_run_dir(std::move(run_dir)) {}

    std::vector<Event> poll();

private:
    struct FileState {
        std::uint64_t offset = 0;
        std::string partial;
        FrameTable frames;
    };
    std::filesystem::path m_run_dir;
    std::map<std::string, FileState> m_files;
};

} // namespace importscope::journal
