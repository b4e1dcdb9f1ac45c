#include "importscope/journal/record_format.hpp"

namespace importscope::journal {

std::array<char, k_file_header_size> file_header() noexcept
{
    std::array<char, k_file_header_size> header{};
    std::memcpy(header.data(), k_file_magic.data(), k_file_magic.size());
    std::memcpy(header.data() + k_file_magic.size(), &k_file_version, sizeof k_file_version);
    return header;
}

HeaderCheck check_file_header(std::string_view bytes, std::uint32_t& version) noexcept
{
    const std::size_t magic = std::min(bytes.size(), k_file_magic.size());
    if (bytes.substr(0, magic) != k_file_magic.substr(0, magic))
        return HeaderCheck::not_a_journal;
    if (bytes.size() < k_file_header_size)
        return HeaderCheck::incomplete;
    std::memcpy(&version, bytes.data() + k_file_magic.size(), sizeof version);
    return version == k_file_version ? HeaderCheck::ok : HeaderCheck::other_version;
}

std::string framed_record(std::string_view payload)
{
    std::string record;
    start_record(record);
    record.append(payload);
    finish_record(record);
    return record;
}

Take take_record(std::string_view& bytes, Record& record) noexcept
{
    if (bytes.size() < k_size_bytes)
        return Take::incomplete;
    std::uint32_t size = 0;
    std::memcpy(&size, bytes.data(), sizeof size);
    if (size == 0 || size > k_max_record)
        return Take::damaged;
    if (bytes.size() < framed_size(size))
        return Take::incomplete;
    record.form = static_cast<RecordForm>(bytes[k_size_bytes]);
    record.payload = bytes.substr(k_record_frame, size - 1);
    bytes.remove_prefix(framed_size(size));
    return Take::record;
}

std::string journal_file_of(std::string_view records)
{
    const auto header = file_header();
    std::string file(header.data(), header.size());
    file.append(records);
    return file;
}

} // namespace importscope::journal
