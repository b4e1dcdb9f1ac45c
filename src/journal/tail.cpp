#include "importscope/journal/tail.hpp"

#include "importscope/journal/run_layout.hpp"

#include <fstream>
#include <stdexcept>

namespace importscope::journal {

std::vector<Event> JournalTail::poll()
{
    std::vector<Event> events;
    for (const auto& path : list_journals(m_run_dir)) {
        FileState& state = m_files[path.filename().string()];
        std::ifstream in(path, std::ios::binary);
        if (!in)
            continue;
        in.seekg(static_cast<std::streamoff>(state.offset));
        std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        state.offset += chunk.size();
        state.partial += chunk;
        std::size_t start = 0;
        for (std::size_t newline; (newline = state.partial.find('\n', start)) != std::string::npos;
             start = newline + 1) {
            try {
                events.push_back(decode(std::string_view(state.partial).substr(start, newline - start), state.frames));
            } catch (const std::invalid_argument&) {
                // The final read reports damaged lines; the live view just skips them.
            }
        }
        state.partial.erase(0, start);
    }
    return events;
}

} // namespace importscope::journal
