#pragma once

// A finding's evidence, typed per finding kind (docs/report-format.md, docs/findings.md): one
// record per kind, each declaring its JSON form once (json_fields.hpp). A finding holds the one of
// its kind; a kind this importscope does not know keeps its evidence as it was read, and every
// record keeps the keys it does not know, so that a report from another version is written back
// unchanged. The kinds an import makes are in import_evidence.hpp, a root cause's evidence in
// cause_evidence.hpp; this file holds the installation kinds and the variant of them all.

#include "importscope/analysis/cause_evidence.hpp"
#include "importscope/analysis/evidence_common.hpp"
#include "importscope/analysis/import_evidence.hpp"
#include "importscope/journal/event.hpp"
#include "importscope/util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace importscope::analysis {

/// An installed distribution, as its metadata names it.
struct DistributionEvidence {
    std::string name;
    std::string version;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("name", e.name);
        f.field("version", e.version);
        f.rest(e.rest);
    }
};

/// One copy of an extension: a run's has the status of its load, a scan's the distributions that
/// install it.
struct ExtensionCopy {
    std::string module;
    std::string file;
    std::optional<std::string> status;
    std::optional<std::vector<DistributionEvidence>> distributions;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("module", e.module);
        f.field("file", e.file);
        f.optional("status", e.status);
        f.optional("distributions", e.distributions);
        f.rest(e.rest);
    }
};

/// `duplicate-extension-copy`.
struct DuplicateCopyEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "duplicate-extension-copy";
    std::vector<ExtensionCopy> copies;
    std::string matched_by;            ///< "sha256" or "package-relative path"
    std::optional<std::string> sha256; ///< a run's, when matched by content
    std::optional<StaticSeen> static_seen;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("copies", e.copies);
        f.field("matched_by", e.matched_by);
        f.optional("sha256", e.sha256);
        f.optional("static", e.static_seen);
        f.rest(e.rest);
    }
};

/// A place a top-level package is importable from, with the distribution installed there (or null).
struct InstallationPlace {
    std::string place;
    std::string origin;
    std::optional<DistributionEvidence> distribution;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("place", e.place);
        f.field("origin", e.origin);
        f.nullable("distribution", e.distribution);
        f.rest(e.rest);
    }
};

/// `multiple-installations`, of one of three shapes: a package shadowing others along sys.path
/// (`shadowed`, `places`), one directory claimed by two distributions (`distributions`), or a
/// package loaded from elsewhere than where it is importable from (`also_loaded_from`, with the
/// `distribution` installed there, or null).
struct MultipleInstallationsEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "multiple-installations";
    std::string name;
    std::string importable_from;
    std::optional<std::vector<std::string>> shadowed;
    std::optional<std::vector<InstallationPlace>> places;
    std::optional<std::vector<DistributionEvidence>> distributions;
    std::optional<std::vector<std::string>> also_loaded_from;
    std::optional<DistributionEvidence> distribution; ///< with also_loaded_from only
    std::optional<StaticSeen> static_seen;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("name", e.name);
        f.field("importable_from", e.importable_from);
        f.optional("shadowed", e.shadowed);
        f.optional("places", e.places);
        f.optional("distributions", e.distributions);
        f.optional("also_loaded_from", e.also_loaded_from);
        if (e.also_loaded_from) // read before it
            f.nullable("distribution", e.distribution);
        f.optional("static", e.static_seen);
        f.rest(e.rest);
    }
};

/// An exception's type and message.
struct ErrorText {
    std::string type;
    std::string message;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("type", e.type);
        f.field("message", e.message);
        f.rest(e.rest);
    }
};

/// `extension-load-failed`: a load that raised (`error`), or no build for this interpreter
/// (`files` and `suffixes`).
struct LoadFailedEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "extension-load-failed";
    std::string reason; ///< "missing-shared-library", "no-build-for-this-interpreter", ...
    std::string module;
    std::optional<ErrorText> error;
    std::optional<std::vector<std::string>> files;    ///< the builds its package has
    std::optional<std::vector<std::string>> suffixes; ///< the suffixes this interpreter loads
    std::optional<journal::Frame> import_site;
    std::optional<journal::Frame> caught_at;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("reason", e.reason);
        f.field("module", e.module);
        f.optional("error", e.error);
        f.optional("files", e.files);
        f.optional("suffixes", e.suffixes);
        f.nullable("import_site", e.import_site);
        f.nullable("caught_at", e.caught_at);
        f.rest(e.rest);
    }
};

/// `package-directory-on-sys-path` (a scan's): a sys.path entry inside a package that another
/// entry imports too.
struct PackageDirectoryEvidence : CommonEvidence {
    static constexpr std::string_view k_kind = "package-directory-on-sys-path";
    std::string entry;
    std::string origin; ///< how the entry is on sys.path
    std::string outer_entry;
    std::string package;
    std::vector<std::string> extensions; ///< that would be initialized twice
    std::optional<StaticSeen> static_seen;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        common_fields(f, e);
        f.field("entry", e.entry);
        f.field("origin", e.origin);
        f.field("outer_entry", e.outer_entry);
        f.field("package", e.package);
        f.field("extensions", e.extensions);
        f.optional("static", e.static_seen);
        f.rest(e.rest);
    }
};

/// The evidence of a kind this importscope does not type, as it was read.
struct OtherEvidence {
    nlohmann::json json = nlohmann::json::object();
};

/// A finding's evidence: the record of its kind (Finding::kind).
using Evidence = std::variant<OtherEvidence, DuplicateInitEvidence, PartialAliasEvidence, DuplicateSourceExecEvidence,
                              NativeTypeConflictEvidence, DuplicateCopyEvidence, MultipleInstallationsEvidence,
                              LoadFailedEvidence, PackageDirectoryEvidence>;

void write_evidence(nlohmann::json& j, const Evidence& evidence);

/// A template, so that nlohmann's look-up never tries to convert another record into the variant.
template <typename T>
requires std::same_as<T, Evidence>
void to_json(nlohmann::json& j, const T& evidence)
{
    write_evidence(j, evidence);
}

/// Reads `value` as the evidence of a finding of `kind` (json_fields' `tagged`); `path` names it
/// in what is thrown.
void read_tagged(const nlohmann::json& value, Evidence& evidence, const std::string& kind, const std::string& path);

/// `value` read as the evidence of a finding of `kind`; throws std::invalid_argument as read_tagged.
Evidence evidence_of(const std::string& kind, const nlohmann::json& value);

/// Sets the variables read on the finding's import path (environment_reads.hpp).
void set_environment_read(Evidence& evidence, std::vector<EnvironmentReadEvidence> reads);

/// The variables read on the finding's import path (evidence.environment_read), for every kind.
std::vector<EnvironmentReadEvidence> environment_read_of(const Evidence& evidence);

/// Where a scan saw what the evidence says (evidence.static.seen); none for a run's evidence.
std::vector<SourcePlace> static_seen_of(const Evidence& evidence);

/// What of a finding's evidence tells which environment reads could have chosen its import path:
/// the files of the frames and lines it names, and the event order of its last load (0: none).
struct ImportPath {
    std::set<std::string> files;
    std::uint64_t last_load = 0;
};
ImportPath import_path_of(const Evidence& evidence);

} // namespace importscope::analysis
