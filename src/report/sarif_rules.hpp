#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

/// The rules of importscope's SARIF logs: one per finding kind it knows, in the order of
/// analysis::k_finding_kinds, with what each kind means and how it is usually fixed.
namespace importscope::report {

/// tool.driver.rules: every kind's reportingDescriptor (id, name, descriptions, help, default level).
nlohmann::json sarif_rules();

/// The index of `kind`'s rule in sarif_rules(), or nothing for a kind importscope does not know.
std::optional<std::size_t> sarif_rule_index(const std::string& kind);

} // namespace importscope::report
