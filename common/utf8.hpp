// popebench's one rule for text that reaches JSON (run files, summaries, provenance): it must be
// UTF-8, and anything else is refused before any work, where it comes in (the command line in
// main, file names found in a folder by merge and export). JSON cannot hold other bytes; the
// writer would otherwise throw after the runs had trained, leaving no run JSON.
#pragma once
#include <string>
#include <string_view>

namespace popebench {

// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
inline bool is_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int n = 0;
    unsigned cp = 0, min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return false;
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

// The string with every byte outside printable ASCII written \xNN: safe to quote in a message.
std::string escaped_bytes(std::string_view s);

// A file that a command found in `folder` (merge, export), before its name goes into JSON or CSV:
// a name that is not UTF-8 is a UserError naming it with its bytes escaped.
void require_utf8_file_name(const std::string& path, const std::string& folder);

}  // namespace popebench
