#include "importscope/collect/binding_library.hpp"
#include "importscope/util/regular_file.hpp"

#include <array>
#include <cstring>
#include <optional>
#include <string_view>
#include <sys/mman.h>

namespace importscope::collect {

namespace {

/// A file mapped read-only, unmapped and closed with its owner.
class MappedFile {
public:
    explicit MappedFile(const std::string& path)
    {
        // A regular file alone: a FIFO put where the extension was is not waited on.
        const std::optional<RegularFile> file = open_regular_file(path.c_str());
        if (!file || file->size == 0 || file->size > k_largest_extension_file)
            return;
        void* data = ::mmap(nullptr, file->size, PROT_READ, MAP_PRIVATE, file->fd.get(), 0);
        if (data != MAP_FAILED) {
            m_data = static_cast<const char*>(data);
            m_size = file->size;
        }
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
