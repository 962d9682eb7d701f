#include "common/json_read.hpp"

#include <set>
#include <vector>

#include "common/files.hpp"

namespace popebench {

nlohmann::json parse_json_document(std::string_view text, const std::string& what) {
  // One pass: the parser's callback sees every object, array and key as it comes, so a deep or
  // repetitive document is refused while it is read, before the rest of it is built.
  std::vector<std::set<std::string>> keys;  // one set per open object or array (arrays' stay empty)
  auto problem = [&](const std::string& why) { return UserError(what + ": " + why); };
  auto check = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start || event == E::array_start) {
      if (int(keys.size()) >= kMaxJsonDepth) throw problem("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      keys.emplace_back();
    } else if (event == E::object_end || event == E::array_end) {
      keys.pop_back();
    } else if (event == E::key && !keys.back().insert(parsed.get<std::string>()).second) {
      // A key quoted in the message: at most 40 characters, control bytes escaped.
      const std::string k = parsed.get<std::string>();
      const std::string quoted = nlohmann::json(k.substr(0, 40)).dump();
      throw problem("the key \"" + quoted.substr(1, quoted.size() - 2) + (k.size() > 40 ? "..." : "") +
                    "\" appears twice in one object");
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), check);
  } catch (const nlohmann::json::parse_error& e) {
    throw problem("not valid JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception&) {  // e.g. a number beyond double's range, 1e400
    throw problem("not valid JSON (a number out of range)");
  }
}

nlohmann::json read_json_file(const std::string& path) { return parse_json_document(read_file(path), path); }

}  // namespace popebench
