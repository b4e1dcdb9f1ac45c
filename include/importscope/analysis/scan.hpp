#pragma once

#include "importscope/analysis/evidence_common.hpp"
#include "importscope/analysis/finding.hpp"
#include "importscope/util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace importscope::analysis {

/// What `importscope scan`'s scanner (src/scan/scanner.py, run with the examined interpreter) saw:
/// facts, read from its JSON ("importscope-scan-facts/1", docs/report-format.md), no findings. Each
/// record declares its fields once (json_fields.hpp); a key the scanner leaves out reads as the default. A
/// file and a line is evidence_common.hpp's SourcePlace, as in a finding's evidence.

/// A top-level name a directory makes importable: a package (with `__init__.py`), a module or an
/// extension.
struct TopLevelName {
    std::string name;
    std::string kind;
    std::string path;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("name", e.name);
        f.field("kind", e.kind);
        f.field("path", e.path);
    }
};

struct ScannedEntry {
    std::string entry;  ///< as sys.path has it
    std::string path;   ///< its real path
    std::string origin; ///< "PYTHONPATH", ".pth", "site-packages", "stdlib", "start-up", "argument"
    SourcePlace pth;     ///< the .pth file and line that names it (origin ".pth")
    std::vector<TopLevelName> top_level;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("entry", e.entry);
        f.field("path", e.path);
        f.field("origin", e.origin);
        f.field("pth", e.pth);
        f.field("top_level", e.top_level);
    }
};

/// One module that importing through an alias executes again, and where the module before it in the
/// chain imports it.
struct ExecutedAgain {
    std::string module;
    std::string file;
    SourcePlace imported_at;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("module", e.module);
        f.field("file", e.file);
        f.field("imported_at", e.imported_at);
    }
};

struct AliasImporter {
    std::string file;
    int line = 0;
    std::string module; ///< the name imported, under the alias: "deep_gemm.utils"
    /// What that import executes again, ending at an extension; empty when it reaches none.
    std::vector<ExecutedAgain> executes_again;
    /// When it reaches no extension: the modules it executes under the alias that the scanned code
    /// also runs under the package's own names (its __init__ and what imports them by those names);
    /// none when the scan could not follow them.
    std::optional<std::vector<std::string>> under_both_names;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("module", e.module);
        f.field("executes_again", e.executes_again);
        f.optional("under_both_names", e.under_both_names);
    }
};

/// A loop that stores computed keys under an alias's prefix ("deep_gemm." + ...): its submodules.
struct SubmoduleAliasing {
    std::string file;
    int line = 0;
    std::string prefix;
    std::string function;
    std::string condition; ///< what it runs under that the alias's own line does not ("" for nothing)
    int condition_line = 0;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("prefix", e.prefix);
        f.field("function", e.function);
        f.field("condition", e.condition);
        f.field("condition_line", e.condition_line);
    }
};

/// A constant key written into sys.modules with a module of another name.
struct StaticAlias {
    std::string file;
    int line = 0;
    std::string alias;                ///< the key
    std::vector<std::string> targets; ///< the modules the value can be
    bool targets_known = false;       ///< false: the value could not be resolved
    std::string function;             ///< the enclosing function, "" at the module's top
    std::string value;                ///< the value's source text
    std::string target;               ///< the first target found in the scanned trees, or ""
    std::string target_file;
    bool target_is_package = false;
    std::vector<AliasImporter> importers;
    std::vector<SubmoduleAliasing> covered_by;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("alias", e.alias);
        f.field("targets", e.targets);
        f.field("targets_known", e.targets_known);
        f.field("function", e.function);
        f.field("value", e.value);
        f.field("target", e.target);
        f.field("target_file", e.target_file);
        f.field("target_is_package", e.target_is_package);
        f.field("importers", e.importers);
        f.field("covered_by", e.covered_by);
    }
};

struct ScannedExtension {
    std::string path;
    std::string module; ///< its dotted name from the directory scanned
    std::string root;
    std::uint64_t size = 0;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("path", e.path);
        f.field("module", e.module);
        f.field("root", e.root);
        f.field("size", e.size);
    }
};

/// A sys.path entry that is a package's own directory while an outer entry imports the package.
struct PackageDirectoryEntry {
    ScannedEntry entry;
    std::string outer_entry;
    std::string package;
    std::vector<std::string> extensions;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("entry", e.entry);
        f.field("outer_entry", e.outer_entry);
        f.field("package", e.package);
        f.field("extensions", e.extensions);
    }
};

struct ScanFileCounts {
    std::size_t sources = 0;
    std::size_t prefiltered = 0;
    std::size_t parsed = 0;
    std::size_t extensions = 0;

    /// The scanner's "files" and a scan report's (json_fields.hpp).
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("sources", e.sources);
        f.field("prefiltered", e.prefiltered);
        f.field("parsed", e.parsed);
        f.field("extensions", e.extensions);
    }
};

/// Code the interpreter's start-up would run, recorded by the scanner and never executed: a .pth
/// file's `import` line, or the sitecustomize or usercustomize module site would import.
struct StartupCode {
    std::string kind; ///< "pth-import", "sitecustomize", "usercustomize"
    std::string file;
    int line = 0; ///< the .pth line; 0 for a module
    std::string text;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("kind", e.kind);
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("text", e.text);
    }
};

/// A source file the scanner read and could not parse (a syntax error, an encoding it does not know).
struct UnparsableFile {
    std::string file;
    std::string error;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("error", e.error);
    }
};

/// A file or directory the scan could not read (permissions, an I/O error, a source file too large
/// to parse): what it holds is unknown, so the scan is incomplete.
struct UnreadFile {
    std::string path;
    std::string error;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("path", e.path);
        f.field("error", e.error);
    }
};

struct ScanFacts {
    nlohmann::json python; ///< {"executable", "version"}
    std::vector<ScannedEntry> sys_path;
    std::vector<ScannedEntry> arguments;
    ScanFileCounts files;
    std::vector<StaticAlias> aliases;
    std::vector<ScannedExtension> extensions;
    std::vector<PackageDirectoryEntry> package_dirs_on_path;
    std::vector<UnparsableFile> unparsable;
    std::vector<std::string> problems;
    std::vector<StartupCode> startup_code;
    std::vector<UnreadFile> unread;
    double duration_s = 0;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("python", e.python);
        f.field("sys_path", e.sys_path);
        f.field("arguments", e.arguments);
        f.field("files", e.files);
        f.field("aliases", e.aliases);
        f.field("extensions", e.extensions);
        f.field("package_dirs_on_path", e.package_dirs_on_path);
        f.field("unparsable", e.unparsable);
        f.field("problems", e.problems);
        f.field("startup_code", e.startup_code);
        f.field("unread", e.unread);
        f.field("duration_s", e.duration_s);
    }
};

/// The facts of the scanner's output; throws std::invalid_argument when it is not such a document.
ScanFacts parse_scan_facts(const std::string& text);

/// Every hazard the facts show, as findings of the kinds `run` makes where they mean the same, each
/// with `evidence.static`: partial-alias, duplicate-extension-copy, multiple-installations,
/// package-directory-on-sys-path. With `options` as analyze() takes them (contents compared with
/// hash_file, places named with distribution_of, known issues matched), ordered as it orders.
std::vector<Finding> find_static_hazards(const ScanFacts& facts, const AnalysisOptions& options = {});

} // namespace importscope::analysis
