#include "common/json_read.hpp"

#include <set>
#include <vector>

#include "common/files.hpp"

namespace popebench {
namespace {

// A SAX pass before the document is built: it sees depth and keys as they come, so a deep or
// repetitive document is refused before any tree of it exists.
class Checker : public nlohmann::json::json_sax_t {
 public:
  std::string problem;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (!keys_.back().insert(k).second) {
      problem = "the key \"" + printable(k) + "\" appears twice in one object";
      return false;
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    problem = "not valid JSON (at byte " + std::to_string(position) + ")";
    return false;
  }

 private:
  bool open() {
    if (int(keys_.size()) >= kMaxJsonDepth) {
      problem = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return false;
    }
    keys_.emplace_back();  // an array's set stays empty: it only counts the depth
    return true;
  }
  bool close() {
    keys_.pop_back();
    return true;
  }
  // A key quoted in a message: at most 40 characters, control bytes escaped.
  static std::string printable(const std::string& k) {
    std::string s = nlohmann::json(k.substr(0, 40)).dump();
    return s.substr(1, s.size() - 2) + (k.size() > 40 ? "..." : "");
  }
  std::vector<std::set<std::string>> keys_;
};

}  // namespace

nlohmann::json parse_json_document(std::string_view text, const std::string& what) {
  Checker check;
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &check) || !check.problem.empty())
    throw UserError(what + ": " + (check.problem.empty() ? "not valid JSON" : check.problem));
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) throw UserError(what + ": not valid JSON");
  return j;
}

nlohmann::json read_json_file(const std::string& path) { return parse_json_document(read_file(path), path); }

}  // namespace popebench
