// Built into every executable of a sanitizer build (IMPORTSCOPE_SANITIZE), so that the options hold
// wherever the binary runs, at test discovery time as well as under ctest. The strings come from
// CMake, which hands the same ones to the Python processes of the end-to-end tests.

extern "C" {

/// ASan options: a target's own SIGSEGV, SIGBUS and SIGFPE stay fatal signals, as under python.
const char* __asan_default_options() { return IMPORTSCOPE_ASAN_OPTIONS; }

/// LSan options: CPython's known leaks at exit are suppressed (tests/sanitizers/lsan.supp).
const char* __lsan_default_options() { return IMPORTSCOPE_LSAN_OPTIONS; }

/// UBSan options: every finding stops the program, with its stack.
const char* __ubsan_default_options() { return IMPORTSCOPE_UBSAN_OPTIONS; }

}
