// Presets: named sets of `train` options over the suite's defaults (docs/spec.md). The shipped
// ones are the files configs/presets/NAME.json, embedded in the binary at build time
// (cmake/embed_presets.cmake), so that what a preset is can be read in the repository and no file
// is needed at run time; a path to a JSON file of the same form is a preset too (a user's own):
//   {"name": "...", "description": "...", "seeds": [0, 1], "args": ["--layers", "2", ...]}
// `args` are parsed as `popebench train` parses its command line, so a preset can say nothing an
// option cannot; options given on the command line are applied over the preset.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "config/config.hpp"

namespace popebench::cli {

struct Preset {
  std::string name, description;
  std::vector<uint64_t> seeds;
  std::vector<std::string> args;
};

// Whether a --preset value names a file (it holds '/' or ends in .json) rather than a shipped preset.
bool is_preset_path(const std::string& name_or_path);
// A preset's JSON text as a structure; `where` names it in errors (a UserError on anything else).
Preset parse_preset(const std::string& text, const std::string& where);
// Each shipped preset's name and JSON text (generated from configs/presets/*.json).
const std::vector<std::pair<std::string, std::string>>& shipped_presets();
// A shipped preset by name, or a preset file by path (a name with '/' or ending in .json).
// Throws UserError for an unknown name or a file that is not a preset, naming the problem.
Preset read_preset(const std::string& name_or_path);

}  // namespace popebench::cli
