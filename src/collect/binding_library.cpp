#include "importscope/collect/binding_library.hpp"

#include <array>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace importscope::collect {

namespace {

/// A file mapped read-only, unmapped and closed with its owner.
class MappedFile {
public:
    explicit MappedFile(const std::string& path)
    {
        // O_NONBLOCK: a FIFO put where the extension was is not waited on (fstat then passes it over).
        const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return;
        struct stat st {};
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
            void* data = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
            if (data != MAP_FAILED) {
                m_data = static_cast<const char*>(data);
                m_size = static_cast<std::size_t>(st.st_size);
            }
        }
        ::close(fd);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile()
    {
        if (m_data)
            ::munmap(const_cast<char*>(m_data), m_size);
    }

    explicit operator bool() const { return m_data != nullptr; }
    bool contains(std::string_view mark) const
    {
        return ::memmem(m_data, m_size, mark.data(), mark.size()) != nullptr;
    }

private:
    const char* m_data = nullptr;
    std::size_t m_size = 0;
};

struct Mark {
    std::string_view library;
    std::string_view text;
};

// In the order checked: a pybind11 module may embed Cython-free C++ that mentions nothing else,
// while a Cython module never holds pybind11's internals key.
constexpr std::array k_marks = {
    Mark{"pybind11", "__pybind11_internals_v"},
    Mark{"nanobind", "__nanobind_internals"},
    Mark{"PyO3", "pyo3"},
    Mark{"Cython", "__pyx_"},
};

} // namespace

std::string binding_library_of(const std::string& path)
{
    const MappedFile file(path);
    if (!file)
        return {};
    for (const Mark& mark : k_marks)
        if (file.contains(mark.text))
            return std::string(mark.library);
    return "C API";
}

} // namespace importscope::collect
