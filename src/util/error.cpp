#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <cstring>

namespace importscope {

Error system_error(const std::string& what, int err)
{
    return Error(fmt::format("{}: {}", what, std::strerror(err)));
}

} // namespace importscope
