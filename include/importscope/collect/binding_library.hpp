#pragma once

#include <string>

namespace importscope::collect {

/// Which binding library an extension module was built with, read from its file's bytes:
/// "pybind11", "nanobind", "PyO3", "Cython", or "C API" when it shows none of their marks; ""
/// when the file cannot be read, is no regular file (a FIFO is not waited on) or is larger than
/// 4 GiB (a sparse file put where the extension was is not scanned). The marks are the names each
/// library leaves in every module it builds (pybind11's internals key, nanobind's, PyO3's panic
/// locations, Cython's __pyx_ names).
std::string binding_library_of(const std::string& path);

} // namespace importscope::collect
