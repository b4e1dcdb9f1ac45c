#include "importscope/report/reader.hpp"

#include "importscope/report/report.hpp"
#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <vector>
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
    if (schema != k_schema && schema != k_schema_1)
        throw std::invalid_argument(
            fmt::format("schema \"{}\" is not supported (this importscope reads \"{}\" and \"{}\"; a newer report "
                        "needs a newer importscope)",
                        schema, k_schema, k_schema_1));
    require(report, "tool", json::value_t::object, "report");
    const bool scan = report.contains("scan");
    require(report, scan ? "scan" : "run", json::value_t::object, "report");
    require(report, "processes", json::value_t::array, "report");
    require(report, "modules", json::value_t::array, "report");
    require(report, "findings", json::value_t::array, "report");
    require(report, "problems", json::value_t::array, "report");
    require(report, "summary", json::value_t::object, "report");
    if (scan) {
        require(report.at("scan"), "files", json::value_t::object, "scan");
        require(report.at("scan"), "python", json::value_t::object, "scan");
    } else {
        require(report.at("run"), "exit", json::value_t::object, "run");
        require(report.at("run"), "target", json::value_t::object, "run");
    }
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
    for (const json& m : report.at("modules"))
        if (!m.is_object())
            throw std::invalid_argument("a module record is not an object");
}

/// Whether `value` is an index into a table of `size` items.
bool is_index(const json& value, std::size_t size)
{
    return value.is_number_unsigned() && value.get<std::uint64_t>() < size;
}

/// Every frame a report/2 module record names is in the report's "frames" (check_shape saw the
/// records are objects).
void check_frame_references(const json& report)
{
    require(report, "frames", json::value_t::array, "report");
    const std::size_t size = report.at("frames").size();
    for (const json& m : report.at("modules")) {
        if (const auto stack = m.find("stack"); stack != m.end()) {
            if (!stack->is_array() ||
                !std::all_of(stack->begin(), stack->end(), [&](const json& i) { return is_index(i, size); }))
                throw std::invalid_argument("a module record's stack names a frame that \"frames\" does not hold");
        }
        for (const char* key : {"call_site", "caught_at"})
            if (const auto frame = m.find(key); frame != m.end() && !frame->is_null() && !is_index(*frame, size))
                throw std::invalid_argument(
                    fmt::format("a module record's {} names a frame that \"frames\" does not hold", key));
    }
}

/// A report/1 read as the report/2 it would be: its module records' frames, which it holds whole,
/// moved into "frames" (each distinct frame once) and named by index.
void upgrade_from_schema_1(json& report)
{
    json frames = json::array();
    std::map<std::string, std::size_t> index_of; // a frame's text -> its index
    const auto intern = [&](json& frame) {
        if (frame.is_null())
            return;
        if (!frame.is_object())
            throw std::invalid_argument("a module record's frame is not an object");
        const auto [it, added] = index_of.emplace(frame.dump(), frames.size());
        if (added)
            frames.push_back(std::move(frame));
        frame = it->second;
    };
    for (json& m : report.at("modules")) {
        if (const auto stack = m.find("stack"); stack != m.end() && stack->is_array())
            for (json& frame : *stack)
                intern(frame);
        for (const char* key : {"call_site", "caught_at"})
            if (const auto frame = m.find(key); frame != m.end())
                intern(*frame);
    }
    report["frames"] = std::move(frames);
    report["schema"] = k_schema;
}

/// Whether the brackets of JSON text (outside its strings) nest deeper than `limit`: a bound checked
/// in one pass, before the parser sees the text. Malformed text is the parser's to refuse.
bool nests_deeper_than(std::string_view text, std::size_t limit)
{
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return true;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return false;
}

} // namespace

Document parse_report(std::string_view text, const std::string& name)
{
    if (text.empty())
        throw Error(fmt::format("{}: not an importscope report: the file is empty", name));
    // No report nests deeper than a few levels; a document that does is refused before a tree of
    // it is built (and before anything walks that tree recursively).
    if (nests_deeper_than(text, k_max_report_depth))
        throw Error(fmt::format("{}: not an importscope report: it nests deeper than {} levels", name,
                                k_max_report_depth));
    json report = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (report.is_discarded())
        throw Error(fmt::format("{}: not an importscope report: not valid JSON (truncated?)", name));
    try {
        check_shape(report);
        if (report.at("schema") == k_schema_1)
            upgrade_from_schema_1(report);
        check_frame_references(report);
        return report.get<Document>();
    } catch (const std::invalid_argument& e) {
        throw Error(fmt::format("{}: not an importscope report: {}", name, e.what()));
    } catch (const json::exception& e) {
        throw Error(fmt::format("{}: not an importscope report: {}", name, e.what()));
    }
}

Document read_report(const std::filesystem::path& path)
{
    // Read with a bound: /dev/zero or a FIFO that never ends is refused, not followed forever.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw Error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
    std::string text;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= k_max_report_bytes)
        text.reserve(static_cast<std::size_t>(st.st_size));
    std::vector<char> buffer(std::size_t{1} << 20);
    while (true) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
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
        text.append(buffer.data(), static_cast<std::size_t>(n));
    }
    ::close(fd);
    return parse_report(text, path.string());
}

} // namespace importscope::report
