#pragma once

// What the evidence of every finding kind may hold (evidence.hpp): places in files, where a scan
// saw a hazard, and the environment variables read on a finding's import path.

#include "importscope/util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace importscope::analysis {

using json_fields::from_json;
using json_fields::to_json;

/// A line of a file: {file, line}.
struct SourcePlace {
    std::string file;
    int line = 0;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("file", e.file);
        f.field("line", e.line);
        f.rest(e.rest);
    }
};

/// An environment variable read on a finding's import path (environment_reads.hpp).
struct EnvironmentReadEvidence {
    std::string name;
    bool set = false;
    std::optional<std::string> value; ///< null when unset
    std::string file;                 ///< where it was read
    int line = 0;
    bool on_import_path = false;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("name", e.name);
        f.field("set", e.set);
        f.nullable("value", e.value);
        f.field("file", e.file);
        f.field("line", e.line);
        f.field("on_import_path", e.on_import_path);
        f.rest(e.rest);
    }
};

/// What the evidence of every kind may carry.
struct CommonEvidence {
    std::optional<std::vector<EnvironmentReadEvidence>> environment_read; ///< error findings whose path read some
    nlohmann::json rest; ///< the keys this importscope does not know, kept as they were

    template <typename Fields, typename Self>
    static void common_fields(Fields& f, Self& e)
    {
        f.optional("environment_read", e.environment_read);
    }
};

/// What a scan saw, where (evidence.static).
struct StaticSeen {
    std::vector<SourcePlace> seen;
    nlohmann::json rest;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.field("seen", e.seen);
        f.rest(e.rest);
    }
};

} // namespace importscope::analysis
