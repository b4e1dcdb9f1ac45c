#pragma once

#include <filesystem>

namespace importscope::supervisor {

/// The run's private directory for journals: created with mkdtemp (mode 0700, unpredictable name)
/// under $TMPDIR or /tmp, removed with everything in it when the owner goes, unless kept.
class RunDir {
public:
    RunDir();
    ~RunDir();
    RunDir(const RunDir&) = delete;
    RunDir& operator=(const RunDir&) = delete;

    const std::filesystem::path& path() const noexcept { return m_path; }

    /// Leaves the directory in place (when the report could not be written, say).
    void keep() noexcept { m_keep = true; }

private:
    std::filesystem::path m_path;
    bool m_keep = false;
};

} // namespace importscope::supervisor
