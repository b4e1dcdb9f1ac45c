#pragma once

#include <string>
#include <string_view>

namespace importscope {

/// `text` when it is valid UTF-8, else a copy in `scratch` with each byte that starts no valid
/// sequence replaced by U+FFFD. Checked with RapidJSON's UTF-8 validator; ASCII text is looked at
/// once and never copied.
std::string_view valid_utf8(std::string_view text, std::string& scratch);

} // namespace importscope
