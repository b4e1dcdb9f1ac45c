#pragma once

#include <string>
#include <string_view>

namespace importscope {

/// `text` when it is valid UTF-8, else a copy in `scratch` with each byte that starts no valid
/// sequence replaced by U+FFFD (well-formed as Unicode's table 3-7 says: no overlong form, no
/// surrogate, nothing past U+10FFFF). ASCII text is looked at once and never copied.
std::string_view valid_utf8(std::string_view text, std::string& scratch);

} // namespace importscope
