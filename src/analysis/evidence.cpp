#include "importscope/analysis/evidence.hpp"

#include <algorithm>
#include <exception>
#include <type_traits>
#include <utility>

namespace importscope::analysis {

namespace {

/// Reads `value` into the alternative of `Variant` whose k_kind is `kind`, else keeps it whole in
/// the first alternative (another kind: this importscope does not know it).
template <typename Variant, std::size_t I = 1>
void read_kind(const nlohmann::json& value, Variant& out, const std::string& kind, const std::string& path)
{
    if constexpr (I < std::variant_size_v<Variant>) {
        using Alternative = std::variant_alternative_t<I, Variant>;
        if (kind == Alternative::k_kind) {
            json_fields::read_record(value, out.template emplace<Alternative>(), path);
            return;
        }
        read_kind<Variant, I + 1>(value, out, kind, path);
    } else {
        out.template emplace<0>().json = value;
    }
}

/// The base every typed alternative shares, or null for another kind's.
template <typename Variant>
const CommonEvidence* common_of(const Variant& evidence)
{
    return std::visit(
        [](const auto& e) -> const CommonEvidence* {
            if constexpr (std::is_base_of_v<CommonEvidence, std::decay_t<decltype(e)>>)
                return &e;
            else
                return nullptr;
        },
        evidence);
}

/// `evidence[key]` of another kind's evidence, read as a T; empty when it is missing or not one.
template <typename T>
T value_of(const nlohmann::json& evidence, const char* key)
{
    T out;
    if (const auto it = evidence.is_object() ? evidence.find(key) : evidence.end(); it != evidence.end()) {
        try {
            it->get_to(out);
        } catch (const std::exception&) {
            out = T{};
        }
    }
    return out;
}

void add_frames(const std::vector<journal::Frame>& frames, ImportPath& path)
{
    for (const journal::Frame& frame : frames)
        path.files.insert(frame.file);
}

void add_frames(const std::optional<std::vector<journal::Frame>>& frames, ImportPath& path)
{
    if (frames)
        add_frames(*frames, path);
}

/// Every frame, and every object with a "file" and a "line", in `value`; and its loads' latest
/// "order": how the evidence of a kind this importscope does not type is read.
void add_json(const nlohmann::json& value, ImportPath& path)
{
    if (value.is_array()) {
        for (const auto& item : value)
            add_json(item, path);
        return;
    }
    if (!value.is_object())
        return;
    if (const auto file = value.find("file"); file != value.end() && file->is_string() && value.contains("line"))
        path.files.insert(file->get<std::string>());
    if (const auto order = value.find("order"); order != value.end() && order->is_number_unsigned())
        path.last_load = std::max(path.last_load, order->get<std::uint64_t>());
    for (const auto& [key, item] : value.items())
        if (item.is_structured())
            add_json(item, path);
}

void add_cause(const CauseEvidence& cause, ImportPath& path)
{
    if (const auto* alias = std::get_if<AliasCause>(&cause)) {
        add_frames(alias->first_seen_at, path);
        add_frames(alias->set_at, path);
        add_frames(alias->set_in_code, path);
    } else if (const auto* by_path = std::get_if<LoadByPathCause>(&cause)) {
        if (by_path->at)
            path.files.insert(by_path->at->file);
    } else if (const auto* directory = std::get_if<PackageDirectoryCause>(&cause)) {
        if (directory->added_by)
            add_frames(directory->added_by->before_import_at, path);
    } else {
        add_json(std::get<OtherCause>(cause).json, path);
    }
}

void add_evidence(const DuplicateInitEvidence& e, ImportPath& path)
{
    for (const ExtensionInit& init : e.initializations) {
        add_frames(init.stack, path);
        if (init.call_site)
            path.files.insert(init.call_site->file);
        path.last_load = std::max(path.last_load, init.order);
    }
    add_cause(e.cause, path);
}

void add_evidence(const PartialAliasEvidence& e, ImportPath& path)
{
    add_frames(e.alias_first_used_at, path);
    add_frames(e.alias_set_at, path);
    add_frames(e.alias_set_in_code, path);
    if (e.static_seen)
        for (const SourcePlace& place : e.static_seen->seen)
            path.files.insert(place.file);
    if (e.set_at)
        for (const CodeLine& line : *e.set_at)
            path.files.insert(line.file);
    if (e.importers)
        for (const StaticImporter& importer : *e.importers) {
            path.files.insert(importer.file);
            for (const ChainStep& step : importer.executes_again)
                if (step.imported_at)
                    path.files.insert(step.imported_at->file);
        }
    if (e.submodules_aliased_at)
        for (const AliasingLoop& loop : *e.submodules_aliased_at)
            path.files.insert(loop.file);
}

void add_evidence(const DuplicateSourceExecEvidence& e, ImportPath& path)
{
    for (const SourceExecution& execution : e.executions) {
        add_frames(execution.stack, path);
        if (execution.call_site)
            path.files.insert(execution.call_site->file);
    }
}

void add_evidence(const NativeTypeConflictEvidence& e, ImportPath& path)
{
    add_frames(e.stack, path);
}

void add_evidence(const LoadFailedEvidence& e, ImportPath& path)
{
    if (e.import_site)
        path.files.insert(e.import_site->file);
    if (e.caught_at)
        path.files.insert(e.caught_at->file);
}

/// The kinds whose evidence names no frame but where a scan saw it.
template <typename E>
void add_evidence(const E& e, ImportPath& path)
{
    if (e.static_seen)
        for (const SourcePlace& place : e.static_seen->seen)
            path.files.insert(place.file);
}

void add_evidence(const OtherEvidence& e, ImportPath& path)
{
    add_json(e.json, path);
}

} // namespace

void write_cause(nlohmann::json& j, const CauseEvidence& cause)
{
    std::visit(
        [&](const auto& c) {
            if constexpr (std::is_same_v<std::decay_t<decltype(c)>, OtherCause>)
                j = c.json;
            else
                json_fields::to_json(j, c);
        },
        cause);
}

void from_json(const nlohmann::json& j, CauseEvidence& cause)
{
    const auto kind = j.is_object() ? j.find("kind") : j.end();
    read_kind(j, cause, kind != j.end() && kind->is_string() ? kind->get<std::string>() : std::string(), "cause");
}

std::string kind_of(const CauseEvidence& cause)
{
    return std::visit(
        [](const auto& c) -> std::string {
            if constexpr (std::is_same_v<std::decay_t<decltype(c)>, OtherCause>)
                return c.json.is_object() && c.json.contains("kind") && c.json.at("kind").is_string()
                           ? c.json.at("kind").template get<std::string>()
                           : std::string();
            else
                return c.kind;
        },
        cause);
}

void write_evidence(nlohmann::json& j, const Evidence& evidence)
{
    std::visit(
        [&](const auto& e) {
            if constexpr (std::is_same_v<std::decay_t<decltype(e)>, OtherEvidence>)
                j = e.json;
            else
                json_fields::to_json(j, e);
        },
        evidence);
}

void read_tagged(const nlohmann::json& value, Evidence& evidence, const std::string& kind, const std::string& path)
{
    read_kind(value, evidence, kind, path);
}

Evidence evidence_of(const std::string& kind, const nlohmann::json& value)
{
    Evidence evidence;
    read_tagged(value, evidence, kind, "evidence");
    return evidence;
}

void set_environment_read(Evidence& evidence, std::vector<EnvironmentReadEvidence> reads)
{
    if (auto* other = std::get_if<OtherEvidence>(&evidence)) {
        if (!other->json.is_object())
            other->json = nlohmann::json::object();
        other->json["environment_read"] = reads;
        return;
    }
    std::visit(
        [&](auto& e) {
            if constexpr (std::is_base_of_v<CommonEvidence, std::decay_t<decltype(e)>>)
                e.environment_read = std::move(reads);
        },
        evidence);
}

std::vector<EnvironmentReadEvidence> environment_read_of(const Evidence& evidence)
{
    if (const auto* other = std::get_if<OtherEvidence>(&evidence))
        return value_of<std::vector<EnvironmentReadEvidence>>(other->json, "environment_read");
    const CommonEvidence* common = common_of(evidence);
    return common && common->environment_read ? *common->environment_read : std::vector<EnvironmentReadEvidence>{};
}

std::vector<SourcePlace> static_seen_of(const Evidence& evidence)
{
    if (const auto* other = std::get_if<OtherEvidence>(&evidence))
        return value_of<StaticSeen>(other->json, "static").seen;
    return std::visit(
        [](const auto& e) -> std::vector<SourcePlace> {
            if constexpr (requires { e.static_seen; })
                if (e.static_seen)
                    return e.static_seen->seen;
            return {};
        },
        evidence);
}

ImportPath import_path_of(const Evidence& evidence)
{
    ImportPath path;
    std::visit([&](const auto& e) { add_evidence(e, path); }, evidence);
    return path;
}

} // namespace importscope::analysis
