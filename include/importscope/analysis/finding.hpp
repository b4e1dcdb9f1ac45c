#pragma once

#include "importscope/analysis/evidence.hpp"
#include "importscope/analysis/model.hpp"
#include "importscope/util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace importscope::analysis {

enum class Severity { warning, error };

/// Every finding kind, in the order a JUnit report lists them (docs/findings.md).
inline constexpr std::array k_finding_kinds = {"duplicate-extension-init", "partial-alias",
                                               "duplicate-source-exec",    "native-type-conflict",
                                               "duplicate-extension-copy", "multiple-installations",
                                               "extension-load-failed",    "package-directory-on-sys-path"};

const char* to_string(Severity severity);

NLOHMANN_JSON_SERIALIZE_ENUM(Severity, {{Severity::warning, "warning"}, {Severity::error, "error"}})

/// Where a known issue was fixed upstream.
struct KnownIssueFix {
    std::string pull;   ///< "owner/repo#number"
    std::string commit; ///< the merge commit
    std::string merged; ///< its date, YYYY-MM-DD
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("pull", e.pull);
        f.field("commit", e.commit);
        f.field("merged", e.merged);
        f.rest(e.rest);
    }
};

/// The known-issue catalogue's entry a finding matches (data/known-issues.json), without the
/// signature it was matched by.
struct KnownIssue {
    std::string id; ///< "vllm#59904"
    std::string title;
    std::string explanation;
    std::vector<std::string> advice;
    std::vector<std::string> links;
    std::optional<KnownIssueFix> fixed_in;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("id", e.id);
        f.field("title", e.title);
        f.field("explanation", e.explanation);
        f.field("advice", e.advice);
        f.field("links", e.links);
        f.nullable("fixed_in", e.fixed_in);
        f.rest(e.rest);
    }
};

/// One hazard found in a run: what, where, why it matters and what to do.
struct Finding {
    std::string kind; ///< e.g. "duplicate-extension-init"
    Severity severity = Severity::warning;
    int pid = 0;
    std::vector<std::string> module_names; ///< in the order they were loaded
    std::string file;                      ///< the file concerned, real path
    std::string message;                   ///< one line: what happened
    std::string explanation;               ///< why it is a hazard
    std::string advice;                    ///< what to do
    Evidence evidence;                     ///< the record of its kind (the loads, their call sites)
    std::optional<KnownIssue> known_issue; ///< the catalogue entry this matches
    std::optional<std::string> caused_by;  ///< the id of the root cause that explains it

    /// Its form in a report's "findings" (json_fields.hpp).
    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.required("kind", e.kind);
        f.required("severity", e.severity);
        f.field("pid", e.pid);
        f.required("module_names", e.module_names);
        f.required("file", e.file);
        f.required("message", e.message);
        f.field("explanation", e.explanation);
        f.field("advice", e.advice);
        f.tagged("evidence", e.evidence, e.kind);
        f.nullable("known_issue", e.known_issue);
        f.optional("caused_by", e.caused_by);
    }
};

using json_fields::from_json;
using json_fields::to_json;

/// The SHA-256 of a file's content, or nullopt; injected so that the analysis stays pure and testable.
using FileHasher = std::function<std::optional<std::string>(const std::string& path)>;

class KnownIssueCatalogue;

/// An installed distribution, as its metadata names it.
struct Distribution {
    std::string name;
    std::string version;
};

/// The distributions whose metadata claim the importable file `origin` (a package's
/// `__init__.py`, a module's file): usually one, none when unknown, two when two distributions
/// installed into one directory; injected, as it reads the file system.
using DistributionLookup = std::function<std::vector<Distribution>(const std::string& origin)>;

/// The binding library an extension file was built with ("pybind11", "nanobind", "PyO3",
/// "Cython", "C API"), or "" when unknown (collect::binding_library_of).
using BindingLookup = std::function<std::string(const std::string& path)>;

/// Whether a regular file is at `path`; injected, as it reads the file system.
using FileExists = std::function<bool(const std::string& path)>;

struct AnalysisOptions {
    FileHasher hash_file;                              ///< none: content is never compared
    /// Gives the known-issue catalogue, or null; called once, and only when there is a finding to
    /// match, so that a run without findings never reads (or compiles the patterns of) the catalogue.
    std::function<const KnownIssueCatalogue*()> known_issues; ///< none: no known-issue matching
    DistributionLookup distribution_of;                       ///< none: installations are named by place only
    BindingLookup binding_of; ///< none: a duplicate init is explained without its binding library
    FileExists file_exists;   ///< none: a catalogue entry's fixed_if_beside is never looked for
};

/// `duplicate-extension-init`: one extension file (by st_dev and st_ino, so symlinks and hard links
/// count) whose PyInit ran under two or more module names in one process.
std::vector<Finding> find_duplicate_extension_inits(const RunModel& model);

/// Explains each duplicate init that is an error by what its binding library does on a second
/// init (evidence.binding): pybind11's refusal, nanobind's warning, PyO3's, Cython's and plain C's.
void explain_by_binding(std::vector<Finding>& findings, const BindingLookup& binding_of);

/// `partial-alias`: a package aliased in sys.modules under a second name, but not its submodules,
/// so importing `<alias>.<sub>` executed the original files again. Error when it led to one of the
/// `duplicates` (extension inits), else warning.
std::vector<Finding> find_partial_aliases(const RunModel& model, const std::vector<Finding>& duplicates);

/// `duplicate-source-exec`: one .py file (by identity) executed as two different modules.
std::vector<Finding> find_duplicate_source_execs(const RunModel& model);

/// `native-type-conflict`: an import failed with pybind11's "generic_type: type "X" is already
/// registered!"; names the modules that already expose X and how their files relate.
std::vector<Finding> find_native_type_conflicts(const RunModel& model, const FileHasher& hash_file);

/// `duplicate-extension-copy`: two different extension files with identical content or the same
/// package-relative path, both loaded in one process.
std::vector<Finding> find_duplicate_extension_copies(const RunModel& model, const FileHasher& hash_file);

/// `multiple-installations`: a top-level package importable from sys.path at one place while a
/// package of that name was loaded from another (a vendored copy, say).
std::vector<Finding> find_multiple_installations(const RunModel& model,
                                                 const DistributionLookup& distribution_of = {});

/// `extension-load-failed`: an extension the program went on without. Its load raised (a missing
/// shared library, an undefined symbol, no PyInit of that name) and the process did not end of it;
/// or no finder found a submodule whose package holds it built for other interpreters only. Loads
/// that one of the `duplicates` explains are left to it. Warnings.
std::vector<Finding> find_failed_extension_loads(const RunModel& model, const std::vector<Finding>& duplicates);

/// Each finding's entry of options.known_issues, when there are findings and a catalogue.
void match_known_issues(std::vector<Finding>& findings, const AnalysisOptions& options);

/// Errors first, then by kind, pid and file: the order of every report's findings.
void order_findings(std::vector<Finding>& findings);

/// Every analysis over the run, in a deterministic order (severity, then kind, pid and file), with
/// known issues matched.
std::vector<Finding> analyze(const RunModel& model, const AnalysisOptions& options = {});

} // namespace importscope::analysis
