#include "common/utf8.hpp"

#include "common/error.hpp"

namespace popebench {

std::string escaped_bytes(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7F) out += ch;
    else out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
  }
  return out;
}

void require_utf8_file_name(const std::string& path, const std::string& folder) {
  if (!is_utf8(path)) throw UserError("a file name in " + folder + " is not UTF-8 text: " + escaped_bytes(path));
}

}  // namespace popebench
