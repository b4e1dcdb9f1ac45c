#pragma once

#include <string>
#include <string_view>

/// Where each top-level name is importable from along sys.path, gathered as the target imports it:
/// the evidence of multiple-installations and of a package directory on sys.path.
namespace importscope::hook {

/// Records once where a top-level module of this name is importable from sys.path, and the later
/// entries that hold it too (never for a name of the standard library's). The finder calls it for
/// every top-level import, whatever --match records, with `found_origin` the origin of the spec
/// that PathFinder just gave for the import over sys.path (empty when another finder gave it):
/// the entries up to the one it names are then not asked again. Needs the GIL.
void note_installation(const std::string& top_level, std::string_view found_origin = {});

/// For each dotted component of a recorded `module_name` that matches --match, note_installation:
/// a vendored copy's name (vllm.third_party.deep_gemm) is looked up as a top-level package too.
void note_installations(const std::string& module_name);

} // namespace importscope::hook
