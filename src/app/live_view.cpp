#include "importscope/app/live_view.hpp"

#include "importscope/report/escape.hpp"
#include "importscope/util/clock.hpp"
#include "importscope/util/console.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <sys/ioctl.h>
#include <unistd.h>

namespace importscope::app {

namespace {

/// The terminal's size, or 0 rows when it is too small to give a row to the status line.
winsize terminal_size()
{
    winsize size{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_row < 4 || size.ws_col < 20)
        size.ws_row = 0;
    return size;
}

/// Writes `text` with one write(2), so that the target's output never lands inside a sequence.
void emit(const std::string& text)
{
    (void)std::fflush(stderr);
    print_to_stderr(text); // a status line: a failed redraw loses nothing
}

// The status line has the terminal's last row to itself: the rows above it scroll (DECSTBM), the
// target's cursor is saved and restored around each redraw (DECSC/DECRC), so not a byte the target
// wrote is covered, even a line it has not ended yet.
constexpr const char* k_save_cursor = "\x1b" "7";
constexpr const char* k_restore_cursor = "\x1b" "8";

} // namespace

LiveView::LiveView(collect::Collector& collector, bool show_status)
    : m_collector(collector), m_show_status(show_status), m_started_ns(monotonic_ns())
{
}

bool LiveView::update()
{
    const bool error_found = m_collector.poll();
    const std::int64_t now = monotonic_ns();
    if (!m_show_status || now - m_drawn_ns < k_redraw_ns)
        return error_found;
    m_drawn_ns = now;
    const analysis::LiveFindings& live = m_collector.findings();
    const double elapsed = static_cast<double>(now - m_started_ns) / 1e9;
    const std::vector<analysis::Finding> findings = live.findings();
    std::string line = fmt::format("importscope: {:.1f} s | {} process{} | {} imports | {} finding{}", elapsed,
                                   live.processes(), live.processes() == 1 ? "" : "es", live.imports(),
                                   findings.size(), findings.size() == 1 ? "" : "s");
    if (!findings.empty()) {
        const auto& newest = findings.back();
        // The path is the target's: a directory named with an escape sequence must not drive the terminal.
        line += fmt::format(" | {} in pid {}: {}", report::terminal_text(newest.kind), newest.pid,
                            report::terminal_text(newest.file));
    }
    draw(line);
    return error_found;
}

void LiveView::draw(std::string line)
{
    const winsize size = terminal_size();
    if (size.ws_row == 0 || (m_rows != 0 && size.ws_row != m_rows)) {
        clear(); // too small, or resized: the region is set again for the new size
        if (size.ws_row == 0)
            return;
    }
    // Before every redraw the region is set again, as when it was first set: a target that reset
    // it (printf '\e[r') scrolls the whole screen, and its current line may stand on the last row.
    // The region reset to the whole screen, the last row freed (index down, which scrolls the text
    // up when the cursor is on that row and keeps its column, then up again; a no-op anywhere else),
    // then the rows above it made the scrolling region, with the cursor put back where it was.
    m_rows = size.ws_row;
    std::string text = fmt::format("{}\x1b[r{}\x1b" "D\x1b[1A{}\x1b[1;{}r{}", k_save_cursor, k_restore_cursor,
                                   k_save_cursor, m_rows - 1, k_restore_cursor);
    const std::size_t width = size.ws_col - 1u;
    if (line.size() > width)
        line = line.substr(0, width - 3) + "...";
    text += fmt::format("{}\x1b[{};1H\x1b[2K{}{}", k_save_cursor, m_rows, line, k_restore_cursor);
    emit(text);
}

void LiveView::clear()
{
    if (m_rows == 0)
        return;
    // The status row emptied, the whole screen scrolling again, the cursor where the target left it.
    emit(fmt::format("{}\x1b[{};1H\x1b[2K\x1b[r{}", k_save_cursor, m_rows, k_restore_cursor));
    m_rows = 0;
}

} // namespace importscope::app
