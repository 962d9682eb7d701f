// Every JSON document popebench reads from a file or a user goes through parse_json_document:
// one reader that bounds what it walks, so that no later step (a recursive copy, a dump, a
// comparison) can meet a document deeper than anything popebench writes. It refuses, with a
// UserError naming the document:
//  - text that is not JSON;
//  - nesting deeper than kMaxJsonDepth (a 100,000-deep array crashed `merge` by recursion);
//  - an object with a repeated key (nlohmann keeps the last silently: a plan or a run file with
//    two "steps" would mean whichever came last).
// Strings are valid UTF-8 by construction (the parser checks).
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace popebench {

// popebench's own documents nest at most ~6 levels (a run JSON's config sections, a summary's
// rows); 64 leaves room for any hand-made file and far below what recursion can reach.
inline constexpr int kMaxJsonDepth = 64;

nlohmann::json parse_json_document(std::string_view text, const std::string& what);
// read_file(path) parsed as above, `path` naming it in errors.
nlohmann::json read_json_file(const std::string& path);

}  // namespace popebench
