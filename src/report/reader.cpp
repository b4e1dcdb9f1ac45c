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

/// The schema, first: a report of another schema is refused by its name, not by the first field it
/// lacks. The rest of the shape is the Document's declaration (document.hpp).
void check_schema(const json& report)
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
}

/// What the declaration cannot say: a report is run's or scan's, every frame a module record names
/// is in "frames", and a finding's evidence is an object.
void check_references(const Document& document)
{
    if (document.run.has_value() == document.scan.has_value())
        throw std::invalid_argument(document.run ? "it has both \"run\" and \"scan\"" : "it has no \"run\"");
    const std::size_t size = document.frames.size();
    const auto names_a_frame = [&](const std::optional<std::uint64_t>& index) { return !index || *index < size; };
    for (const ReportedModule& m : document.modules) {
        if (!std::all_of(m.stack.begin(), m.stack.end(), [&](std::uint64_t i) { return i < size; }))
            throw std::invalid_argument("a module record's stack names a frame that \"frames\" does not hold");
        if (!names_a_frame(m.call_site) || !names_a_frame(m.caught_at))
            throw std::invalid_argument(fmt::format("a module record's {} names a frame that \"frames\" does not hold",
                                                    names_a_frame(m.call_site) ? "caught_at" : "call_site"));
    }
    for (std::size_t i = 0; i < document.findings.size(); ++i)
        if (const auto* other = std::get_if<analysis::OtherEvidence>(&document.findings[i].evidence);
            other && !other->json.is_object())
            throw std::invalid_argument(fmt::format("findings[{}].evidence is not an object", i));
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
    report["schema"] = k_schema;
    const auto modules = report.find("modules");
    if (modules == report.end() || !modules->is_array())
        return; // the declaration refuses it
    for (json& m : *modules) {
        if (!m.is_object())
            continue; // the declaration refuses it
        if (const auto stack = m.find("stack"); stack != m.end() && stack->is_array())
            for (json& frame : *stack)
                intern(frame);
        for (const char* key : {"call_site", "caught_at"})
            if (const auto frame = m.find(key); frame != m.end())
                intern(*frame);
    }
    report["frames"] = std::move(frames);
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
        check_schema(report);
        if (report.at("schema") == k_schema_1)
            upgrade_from_schema_1(report);
        Document document = report.get<Document>();
        // A report file holds its frames and module records, though there be none; the tree `run`
        // renders its summary from before they are written does not (run_report.cpp).
        for (const char* key : {"frames", "modules"})
            if (!report.contains(key))
                throw std::invalid_argument(fmt::format("it has no \"{}\"", key));
        check_references(document);
        return document;
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
