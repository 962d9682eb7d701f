#include "train/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/files.hpp"
#include "common/json_read.hpp"
#include "model/model_description.hpp"

namespace popebench {

namespace {
constexpr char kMagic[8] = {'P', 'O', 'P', 'E', 'B', 'C', 'K', '\x1a'};
constexpr uint32_t kVersion = 1;

struct Writer {
  std::string buf;
  template <typename T> void put(const T& v) { buf.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void put_str(const std::string& s) { put<uint64_t>(s.size()); buf += s; }
  void put_vec(const std::vector<float>& v) {
    put<uint64_t>(v.size());
    buf.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
};
struct Reader {
  const std::string& buf;
  size_t pos;
  const std::string& path;
  void need(size_t n) const {
    if (pos + n > buf.size()) throw UserError(path + ": checkpoint is truncated");
  }
  template <typename T> T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, buf.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
  std::string get_str() {
    uint64_t n = get<uint64_t>();
    need(n);
    std::string s = buf.substr(pos, n);
    pos += n;
    return s;
  }
  std::vector<float> get_vec() {
    uint64_t n = get<uint64_t>();
    if (n > buf.size() / sizeof(float)) throw UserError(path + ": checkpoint is corrupt (bad array size)");
    need(n * sizeof(float));
    std::vector<float> v(n);
    if (n) std::memcpy(v.data(), buf.data() + pos, n * sizeof(float));  // an empty vector's data() may be null
    pos += n * sizeof(float);
    return v;
  }
};
}  // namespace

void save_checkpoint(const std::string& path, const Checkpoint& c) {
  Writer w;
  w.buf.append(kMagic, 8);
  w.put(kVersion);
  w.put_str(c.config.dump());
  w.put_str(c.extra.dump());
  w.put(c.step);
  w.put(c.rng_state);
  w.put(c.rng_inc);
  w.put_vec(c.params);
  w.put_vec(c.m);
  w.put_vec(c.v);
  w.put(fnv1a64(w.buf.data(), w.buf.size()));
  write_file_atomic(path, w.buf);
}

Checkpoint load_checkpoint(const std::string& path) {
  std::string buf = read_file(path);
  if (buf.size() < 20 || std::memcmp(buf.data(), kMagic, 8) != 0)
    throw UserError(path + ": not a popebench checkpoint (wrong magic)");
  uint64_t stored;
  std::memcpy(&stored, buf.data() + buf.size() - 8, 8);
  if (fnv1a64(buf.data(), buf.size() - 8) != stored) throw UserError(path + ": checkpoint checksum mismatch (corrupt file)");
  Reader r{buf, 8, path};
  uint32_t version = r.get<uint32_t>();
  if (version != kVersion)
    throw UserError(path + ": checkpoint version " + std::to_string(version) + " is not supported");
  Checkpoint c;
  try {
    c.config = parse_json_document(r.get_str(), path + ": the checkpoint's config");
    c.extra = parse_json_document(r.get_str(), path + ": the checkpoint's training state");
  } catch (const nlohmann::json::exception&) {
    throw UserError(path + ": checkpoint holds malformed JSON");
  }
  c.step = r.get<int64_t>();
  c.rng_state = r.get<uint64_t>();
  c.rng_inc = r.get<uint64_t>();
  c.params = r.get_vec();
  c.m = r.get_vec();
  c.v = r.get_vec();
  if (c.m.size() != c.params.size() || c.v.size() != c.params.size())
    throw UserError(path + ": checkpoint arrays disagree in size");
  if (c.step < 0) throw UserError(path + ": the checkpoint's step is negative");
  // Training stops at the first non-finite loss and keeps the last good checkpoint, so no
  // checkpoint popebench writes holds a NaN or an infinity; one that does came from elsewhere,
  // and such a value once reached a float-to-int cast (inspect's histogram of delta).
  auto finite = [](const std::vector<float>& a) {
    return std::all_of(a.begin(), a.end(), [](float x) { return std::isfinite(x); });
  };
  if (!finite(c.params) || !finite(c.m) || !finite(c.v))
    throw UserError(path + ": the checkpoint holds a parameter or moment that is not a finite number");
  if (!std::all_of(c.v.begin(), c.v.end(), [](float x) { return x >= 0.f; }))
    throw UserError(path + ": the checkpoint holds a negative second moment");
  return c;
}

RunConfig checkpoint_run_config(const Checkpoint& ck, const std::string& path) {
  RunConfig cfg;
  try {
    cfg = ck.config;
    cfg.validate();  // n_head 0 must not reach a division, nor a huge vocabulary an allocation
  } catch (const nlohmann::json::exception&) {
    throw UserError(path + ": checkpoint config is malformed");
  } catch (const UserError& e) {
    throw UserError(path + ": checkpoint config is invalid: " + e.what());
  }
  const size_t expected = ModelDescription(cfg.model, cfg.pe).layout().total;
  if (ck.params.size() != expected)
    throw UserError(path + ": holds " + std::to_string(ck.params.size()) + " parameters, its config needs " +
                    std::to_string(expected));
  return cfg;
}

}  // namespace popebench
