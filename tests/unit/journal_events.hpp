#pragma once

// One event of each kind, with the text a target can put in names, paths and messages, for the
// tests of the journal's two forms (test_journal.cpp, test_journal_records.cpp).

#include "importscope/journal/event.hpp"

#include <string>
#include <vector>

namespace importscope::testing {

/// Text with quotes, backslashes, control characters, non-ASCII, and a byte that is not UTF-8
/// (replaced by U+FFFD, never thrown on).
inline const std::string k_odd_text = "q\"b\\t\tn\nc\x01 \xc3\xa9 \xe2\x82\xac \xff";

/// Every kind of event, with every field set in one of them at least.
inline std::vector<journal::Event> one_of_each_event()
{
    const std::string& odd = k_odd_text;
    const std::vector<journal::Frame> stack = {{"/a/" + odd + ".py", 3, "<module>", "a"}, {"/b.py", 9, "f", ""}};
    const journal::ExceptionInfo error{"pkg.Error", odd, "Traceback\n  " + odd};
    journal::ProcessStart start;
    start.pid = 7;
    start.ppid = 1;
    start.argv = {"python3", odd, ""};
    start.executable = "/usr/bin/python3";
    start.python_version = "3.11.7";
    start.cwd = "/w";
    start.start_method = "spawn";
    start.wall_ns = 1'700'000'000'000'000'000;
    start.mono_ns = 5;
    journal::ExtensionLoad ext{7, 2, 6, "pkg._C", "/p/_C.so", "/real/_C.so", journal::FileIdentity{~0ULL, 1}, stack};
    journal::ImportBegin begin{7, 3, 1, 7, odd, "source", "/p/" + odd, "", std::nullopt, "Loader", "pkg", stack};
    journal::ImportEnd end{7, 4, 1, 8, error, {"RuntimeWarning: nanobind: type '" + odd + "' was already registered!"},
                           ""};
    journal::ImportEnd end_ok{7, 5, 2, 9, std::nullopt, {}, "lxml.etree"}; // its init gave back lxml.etree
    journal::UncaughtException uncaught{7, 6, 10, error};
    journal::ProcessEnd exit{7, 7, 11, 12, "signal", 6};
    journal::ProgramStart program{7, 8, 13, "subprocess.Popen", "", {"sh", "-c", odd}, ""};
    journal::AliasSeen alias{7, 9, 14, "deep_gemm", "v.deep_gemm", "/v/__init__.py", stack, {{"/v/setter.py", 3, "f", "v"}}, {{"/v/other.py", 8, "", "v.other"}}};
    journal::TypeOwners owners{7, 10, 15, "Runtime", {{"m", "/m.so", "/r/m.so", journal::FileIdentity{1, 2}, "m.Runtime", true},
                                                       {"n", "", "", std::nullopt, odd, false}}};
    journal::Installation installation{7, 11, 16, "deep_gemm", "/cwd/deep_gemm/__init__.py",
                                       {"/site/deep_gemm/__init__.py", "/" + odd + "/deep_gemm.py"}};
    journal::Note note{7, 12, 17, odd};
    journal::NoBuild no_build{7, 13, 18, "pkg._C", {"/p/_C.cpython-312-x86_64-linux-gnu.so", odd}, {".so"}, stack};
    journal::Caught caught{7, 14, 19, 1, {"/w/" + odd + ".py", 12, "load", "w"}};
    journal::WorkerProcess worker{7, 15, 20, "rank0", "__mp_main__." + odd};
    journal::EnvironmentRead env_set{7, 16, 21, "FLASHINFER_" + odd, true, odd, {"/f/envs.py", 4, "<lambda>", "f.envs"}};
    journal::EnvironmentRead env_unset{7, 17, 22, "VLLM_X", false, "", {"/v/envs.py", 9, "", ""}};
    journal::ImportBegin late = begin;
    late.late = true;
    late.stack = {};
    journal::SysPathEntries path_start{7, 18, 23, {{"", "/w", "working directory", ""}, {"/p/" + odd, "", ".pth file", "/s/a.pth"}}, {}};
    journal::SysPathEntries path_added{7, 19, 24, {{"/pkg", "", "program", ""}}, stack};
    journal::Finalizing finalizing{7, 20, 25};
    return {start,    ext,    begin,  end,     end_ok,    uncaught,   exit,       program, alias,     owners,     installation,
            note,     no_build, caught, worker, env_set, env_unset, path_start, path_added, late, finalizing};
}

} // namespace importscope::testing
