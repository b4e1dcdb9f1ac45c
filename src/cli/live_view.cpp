#include "cli/live_view.hpp"

#include "importscope/util/clock.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <sys/ioctl.h>
#include <unistd.h>

namespace importscope::cli {

namespace {

std::size_t terminal_width()
{
    winsize size{};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 20)
        return size.ws_col;
    return 100;
}

} // namespace

LiveView::LiveView(std::filesystem::path run_dir, bool show_status, const report::PathRedaction* redaction)
    : m_texts(redaction),
      m_builder([this](const analysis::ModuleRecord& record) { m_texts.add(record); }),
      m_tail(std::move(run_dir),
             [this](const std::string& journal, journal::Event&& e) {
                 m_tally.add(e);
                 m_builder.add(journal, std::move(e));
             }),
      m_show_status(show_status), m_started_ns(monotonic_ns())
{
}

bool LiveView::update()
{
    m_tail.poll();
    m_tally.update();
    const std::int64_t now = monotonic_ns();
    if (m_show_status && now - m_drawn_ns >= k_redraw_ns) {
        m_drawn_ns = now;
        const double elapsed = static_cast<double>(now - m_started_ns) / 1e9;
        std::string line = fmt::format("importscope: {:.1f} s | {} process{} | {} imports | {} finding{}", elapsed,
                                       m_tally.processes(), m_tally.processes() == 1 ? "" : "es", m_tally.imports(),
                                       m_tally.findings().size(), m_tally.findings().size() == 1 ? "" : "s");
        if (!m_tally.findings().empty()) {
            const auto& newest = m_tally.findings().back();
            line += fmt::format(" | {} in pid {}: {}", newest.kind, newest.pid, newest.file);
        }
        const std::size_t width = terminal_width() - 1;
        if (line.size() > width)
            line = line.substr(0, width - 3) + "...";
        fmt::print(stderr, "\r\x1b[K{}", line);
        (void)std::fflush(stderr); // a status line: a failed redraw loses nothing
        m_drawn = true;
    }
    return m_tally.errors() > 0;
}

analysis::RunModel LiveView::finish()
{
    clear();
    return m_builder.finish(m_tail.finish());
}

void LiveView::clear()
{
    if (!m_drawn)
        return;
    fmt::print(stderr, "\r\x1b[K");
    (void)std::fflush(stderr);
    m_drawn = false;
}

} // namespace importscope::cli
