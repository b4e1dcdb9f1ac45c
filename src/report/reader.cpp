#include "importscope/report/reader.hpp"

#include "importscope/report/report.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace importscope::report {

namespace {

using nlohmann::json;

void require(const json& object, const char* key, json::value_t type, const std::string& where)
{
    if (!object.contains(key))
        throw std::invalid_argument(fmt::format("{} has no \"{}\"", where, key));
    const json& value = object.at(key);
    const bool ok = type == json::value_t::number_integer ? value.is_number_integer() : value.type() == type;
    if (!ok)
        throw std::invalid_argument(fmt::format("{}.{} has the wrong type", where, key));
}

void check_shape(const json& report)
{
    if (!report.is_object())
        throw std::invalid_argument("the document is not a JSON object");
    if (!report.contains("schema") || !report.at("schema").is_string())
        throw std::invalid_argument("it has no \"schema\"");
    const std::string schema = report.at("schema");
    if (schema != k_schema)
        throw std::invalid_argument(
            fmt::format("schema \"{}\" is not supported (this importscope reads \"{}\"; a newer report needs a newer "
                        "importscope)",
                        schema, k_schema));
    require(report, "tool", json::value_t::object, "report");
    require(report, "run", json::value_t::object, "report");
    require(report, "processes", json::value_t::array, "report");
    require(report, "modules", json::value_t::array, "report");
    require(report, "findings", json::value_t::array, "report");
    require(report, "problems", json::value_t::array, "report");
    require(report, "summary", json::value_t::object, "report");
    const json& run = report.at("run");
    require(run, "exit", json::value_t::object, "run");
    require(run, "target", json::value_t::object, "run");
    for (const json& f : report.at("findings")) {
        if (!f.is_object())
            throw std::invalid_argument("a finding is not an object");
        require(f, "kind", json::value_t::string, "finding");
        require(f, "severity", json::value_t::string, "finding");
        require(f, "module_names", json::value_t::array, "finding");
        require(f, "file", json::value_t::string, "finding");
        require(f, "message", json::value_t::string, "finding");
        require(f, "evidence", json::value_t::object, "finding");
    }
    for (const json& p : report.at("processes")) {
        if (!p.is_object())
            throw std::invalid_argument("a process is not an object");
        require(p, "pid", json::value_t::number_integer, "process");
    }
}

} // namespace

json parse_report(std::string_view text, const std::string& name)
{
    if (text.empty())
        throw Error(fmt::format("{}: not an importscope report: the file is empty", name));
    // No report nests deeper than a few levels; a document that does is refused while it is read,
    // before a tree of it is built.
    bool too_deep = false;
    const json::parser_callback_t depth_guard = [&](int depth, json::parse_event_t, json&) {
        if (depth > static_cast<int>(k_max_report_depth)) {
            too_deep = true;
            throw std::invalid_argument("too deep");
        }
        return true;
    };
    json report;
    try {
        report = json::parse(text, depth_guard, /*allow_exceptions=*/false);
    } catch (const std::invalid_argument&) {
    }
    if (too_deep)
        throw Error(fmt::format("{}: not an importscope report: it nests deeper than {} levels", name,
                                k_max_report_depth));
    if (report.is_discarded())
        throw Error(fmt::format("{}: not an importscope report: not valid JSON (truncated?)", name));
    try {
        check_shape(report);
    } catch (const std::invalid_argument& e) {
        throw Error(fmt::format("{}: not an importscope report: {}", name, e.what()));
    }
    return report;
}

json read_report(const std::filesystem::path& path)
{
    // Read with a bound: /dev/zero or a FIFO that never ends is refused, not followed forever.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw Error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
    std::string text;
    char buffer[1 << 16];
    while (true) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw Error(fmt::format("cannot read {}: {}", path.string(), std::strerror(err)));
        }
        if (n == 0)
            break;
        if (text.size() + static_cast<std::size_t>(n) > k_max_report_bytes) {
            ::close(fd);
            throw Error(fmt::format("{}: not an importscope report: larger than {} MiB", path.string(),
                                    k_max_report_bytes >> 20));
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return parse_report(text, path.string());
}

} // namespace importscope::report
