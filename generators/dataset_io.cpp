#include "generators/dataset_io.hpp"

#include <filesystem>

#include <bit>
#include <cstring>
#include <sstream>

#include "common/files.hpp"
#include "common/json_int.hpp"
#include "common/version.hpp"
#include "common/json_read.hpp"
#include "generators/vocab.hpp"

namespace popebench {

static_assert(std::endian::native == std::endian::little, "dataset files are little-endian");

namespace {
constexpr char kMagic[8] = {'P', 'O', 'P', 'E', 'B', 'D', 'S', '\x1a'};
constexpr size_t kHeaderBytes = 64;

struct Header {  // on disk, 64 bytes, little-endian
  char magic[8];
  uint32_t version, token_bytes, width, vocab_size;
  uint64_t count, payload_checksum;
  char task[24];
};
static_assert(sizeof(Header) == kHeaderBytes);

std::string checksum_str(uint64_t h) { return "fnv1a64:" + hex64(h); }
const char* file_name(Split s, DatasetStorage st) {
  static const char* bin[] = {"train.bin", "val.bin", "test.bin"};
  static const char* txt[] = {"train.txt", "val.txt", "test.txt"};
  return (st == DatasetStorage::kBinary ? bin : txt)[static_cast<int>(s)];
}
}  // namespace

std::string encode_binary(const Dataset& d, const std::string& task_name) {
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kDatasetFormatVersion;
  h.token_bytes = d.vocab_size <= 256 ? 1 : 2;
  h.width = static_cast<uint32_t>(d.width);
  h.vocab_size = static_cast<uint32_t>(d.vocab_size);
  h.count = d.size();
  std::strncpy(h.task, task_name.c_str(), sizeof h.task - 1);
  size_t rec = 2 + d.width * h.token_bytes;
  std::string out(kHeaderBytes + rec * d.size(), '\0');
  char* p = out.data() + kHeaderBytes;
  for (size_t i = 0; i < d.size(); ++i, p += rec) {
    std::memcpy(p, &d.lengths[i], 2);
    const uint16_t* s = d.seq(i);
    if (h.token_bytes == 1)
      for (int t = 0; t < d.width; ++t) p[2 + t] = static_cast<char>(s[t]);
    else
      std::memcpy(p + 2, s, 2 * d.width);
  }
  h.payload_checksum = fnv1a64(out.data() + kHeaderBytes, out.size() - kHeaderBytes);
  std::memcpy(out.data(), &h, kHeaderBytes);
  return out;
}

Dataset decode_binary(const std::string& bytes, const std::string& what) {
  auto bad = [&](const std::string& m) { throw UserError(what + ": " + m); };
  if (bytes.size() < kHeaderBytes) bad("file too short for a popebench dataset header");
  Header h;
  std::memcpy(&h, bytes.data(), kHeaderBytes);
  if (std::memcmp(h.magic, kMagic, 8) != 0) bad("not a popebench dataset file (wrong magic)");
  if (h.version != kDatasetFormatVersion)
    bad("dataset format version " + std::to_string(h.version) + ", this build reads version " +
        std::to_string(kDatasetFormatVersion));
  if (h.token_bytes != 1 && h.token_bytes != 2) bad("bad token width in header");
  if (h.width == 0 || h.width > 65535) bad("bad record width in header");
  uint64_t rec = 2 + static_cast<uint64_t>(h.width) * h.token_bytes;
  if (h.count > (bytes.size() - kHeaderBytes) / rec || kHeaderBytes + h.count * rec != bytes.size())
    bad("file size " + std::to_string(bytes.size()) + " does not match " + std::to_string(h.count) +
        " records of " + std::to_string(rec) + " bytes (truncated or padded file)");
  if (fnv1a64(bytes.data() + kHeaderBytes, bytes.size() - kHeaderBytes) != h.payload_checksum)
    bad("checksum mismatch: the file is corrupt");
  Dataset d;
  d.width = static_cast<int>(h.width);
  d.vocab_size = static_cast<int>(h.vocab_size);
  d.lengths.resize(h.count);
  d.tokens.resize(h.count * h.width);
  const char* p = bytes.data() + kHeaderBytes;
  for (uint64_t i = 0; i < h.count; ++i, p += rec) {
    std::memcpy(&d.lengths[i], p, 2);
    if (d.lengths[i] < 2 || d.lengths[i] > h.width) bad("record " + std::to_string(i) + " has a bad length");
    uint16_t* s = d.tokens.data() + i * h.width;
    if (h.token_bytes == 1)
      for (uint32_t t = 0; t < h.width; ++t) s[t] = static_cast<unsigned char>(p[2 + t]);
    else
      std::memcpy(s, p + 2, 2 * h.width);
    for (uint32_t t = 0; t < h.width; ++t)
      if (s[t] >= h.vocab_size) bad("record " + std::to_string(i) + " has a token outside the vocabulary");
  }
  return d;
}

std::string encode_text(const Dataset& d) {
  std::string out;
  out.reserve(d.size() * (d.width + 1));
  for (size_t i = 0; i < d.size(); ++i) {
    out += to_text(d.seq(i), d.length(i));
    out += '\n';
  }
  return out;
}

Dataset decode_text(const std::string& text, const TaskConfig& task, const std::string& what) {
  Dataset d;
  d.width = task.width();
  d.vocab_size = task.vocab_size();
  std::istringstream in(text);
  std::string line;
  size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::vector<uint16_t> t;
    try {
      t = parse_text(line);
    } catch (const UserError& e) {
      throw UserError(what + " line " + std::to_string(lineno) + ": " + e.what());
    }
    if (static_cast<int>(t.size()) > d.width)
      throw UserError(what + " line " + std::to_string(lineno) + ": longer than the task allows");
    d.lengths.push_back(static_cast<uint16_t>(t.size()));
    t.resize(d.width, vocab::kPad);
    d.tokens.insert(d.tokens.end(), t.begin(), t.end());
  }
  return d;
}

nlohmann::json write_dataset_dir(const std::string& dir, const GenerateOptions& opt) {
  opt.task.validate();
  if (opt.storage == DatasetStorage::kText && !opt.task.has_text_format())
    throw UserError("the text format exists for indirect-indexing only; use the binary format for " + opt.task.name());
  make_dirs(dir);
  nlohmann::json splits = nlohmann::json::object(), stats = nlohmann::json::object();
  for (Split s : {Split::kTrain, Split::kVal, Split::kTest}) {
    SplitStats st;
    Dataset d = generate_split(opt.task, opt.seed, s, &st);
    std::string bytes = opt.storage == DatasetStorage::kBinary ? encode_binary(d, opt.task.name()) : encode_text(d);
    std::string name = file_name(s, opt.storage);
    write_file_atomic(dir + "/" + name, bytes);
    splits[split_name(s)] = {{"file", name}, {"count", d.size()}, {"bytes", bytes.size()},
                             {"checksum", checksum_str(fnv1a64(bytes.data(), bytes.size()))}};
    stats[split_name(s)] = st;
  }
  nlohmann::json m = {
      {"format", "popebench-dataset"},
      {"format_version", kDatasetFormatVersion},
      {"popebench_version", kPopebenchVersion},
      {"task", opt.task},
      {"seed", opt.seed},
      {"storage", opt.storage == DatasetStorage::kBinary ? "binary" : "text"},
      {"width", opt.task.width()},
      {"vocab_size", opt.task.vocab_size()},
      {"vocabulary", vocab::token_table(opt.task.vocab_size() - vocab::kFirstSymbol)},
      {"splits", splits},
      {"stats", stats},
  };
  // Manifest last: a directory with a manifest is complete.
  write_file_atomic(dir + "/manifest.json", m.dump(2) + "\n");
  return m;
}

DatasetDir open_dataset_dir(const std::string& dir) {
  std::string path = dir + "/manifest.json";
  if (!file_exists(path)) throw UserError("no dataset at " + dir + ": " + path + " is missing");
  DatasetDir info;
  try {
    info.manifest = parse_json_document(read_file(path), "malformed manifest");
    if (info.manifest.at("format") != "popebench-dataset") throw UserError("not a popebench manifest");
    const int v = json_int<int>(info.manifest, "format_version");
    if (v != kDatasetFormatVersion)
      throw UserError("dataset format version " + std::to_string(v) + " is not supported");
    info.task = info.manifest.at("task");
    info.seed = json_int<uint64_t>(info.manifest, "seed");
    info.task.validate();
    // Every field load_split uses, checked here: a manifest is input like any other.
    const std::string storage = info.manifest.at("storage");
    if (storage != "binary" && storage != "text") throw UserError("unknown storage '" + storage + "'");
    const auto& splits = info.manifest.at("splits");
    if (!splits.is_object()) throw UserError("splits is not an object");
    for (Split sp : {Split::kTrain, Split::kVal, Split::kTest}) {
      const auto& e = splits.at(split_name(sp));
      const std::string file = e.at("file");
      if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..")
        throw UserError(std::string(split_name(sp)) + " file '" + file + "' is not a file name in the dataset folder");
      if (!e.at("count").is_number_unsigned() || !e.at("checksum").is_string())
        throw UserError(std::string(split_name(sp)) + ": count must be a non-negative integer and checksum a string");
    }
  } catch (const nlohmann::json::exception& e) {
    throw UserError(path + ": malformed manifest (" + e.what() + ")");
  } catch (const UserError& e) {
    throw UserError(path + ": " + e.what());
  }
  return info;
}

static Dataset load_split_checked(const std::string& dir, const DatasetDir& info, Split s);

Dataset load_split(const std::string& dir, const DatasetDir& info, Split s) {
  try {
    return load_split_checked(dir, info, s);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(dir + "/manifest.json: malformed manifest (" + e.what() + ")");
  }
}

static Dataset load_split_checked(const std::string& dir, const DatasetDir& info, Split s) {
  const auto& entry = info.manifest.at("splits").at(split_name(s));
  std::string file = entry.at("file");
  std::string path = dir + "/" + file;
  // The manifest says how large the file is: refuse a different size before reading it all.
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && entry.contains("bytes") && entry["bytes"].is_number_unsigned() && size != entry["bytes"].get<uint64_t>())
    throw UserError(path + ": its size, " + std::to_string(size) + " bytes, does not match the manifest's " +
                    std::to_string(entry["bytes"].get<uint64_t>()) + " (file changed or corrupt)");
  std::string bytes = read_file(path);
  if (checksum_str(fnv1a64(bytes.data(), bytes.size())) != entry.at("checksum").get<std::string>())
    throw UserError(path + ": checksum does not match the manifest (file changed or corrupt)");
  bool binary = info.manifest.at("storage") == "binary";
  Dataset d = binary ? decode_binary(bytes, path) : decode_text(bytes, info.task, path);
  if (d.size() != entry.at("count").get<size_t>())
    throw UserError(path + ": holds " + std::to_string(d.size()) + " examples, manifest says " +
                    std::to_string(entry.at("count").get<size_t>()));
  if (d.width != info.task.width() || d.vocab_size != info.task.vocab_size())
    throw UserError(path + ": record width or vocabulary does not match the manifest's task");
  return d;
}

}  // namespace popebench
