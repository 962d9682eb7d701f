// Token layout shared by every task. Fixed ids first, then the task's symbols, so a larger
// alphabet (length extrapolation) extends the vocabulary without moving any other token.
//   0 PAD | 1 ',' | 2 '+' | 3 '-' | 4..13 digits '0'..'9' | 14.. symbols (A-Z then a-z for 52)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace popebench::vocab {

constexpr uint16_t kPad = 0;
constexpr uint16_t kComma = 1;
constexpr uint16_t kPlus = 2;
constexpr uint16_t kMinus = 3;
constexpr uint16_t kDigit0 = 4;
constexpr uint16_t kFirstSymbol = 14;
constexpr int kLetters = 52;  // symbols that have a one-character text form
constexpr int kMaxAlphabet = 4096;  // symbols any task may use (ids stay far below uint16's range)

inline int vocab_size(int alphabet) { return kFirstSymbol + alphabet; }
inline uint16_t symbol(int i) { return static_cast<uint16_t>(kFirstSymbol + i); }
inline bool is_symbol(uint16_t t) { return t >= kFirstSymbol; }

inline char letter_char(int i) { return i < 26 ? static_cast<char>('A' + i) : static_cast<char>('a' + i - 26); }

// Text form of one token; symbols beyond the 52 letters have none (text format refuses them).
inline std::string token_text(uint16_t t) {
  if (t == kPad) return "<pad>";
  if (t == kComma) return ",";
  if (t == kPlus) return "+";
  if (t == kMinus) return "-";
  if (t < kFirstSymbol) return std::string(1, static_cast<char>('0' + (t - kDigit0)));
  int i = t - kFirstSymbol;
  if (i < kLetters) return std::string(1, letter_char(i));
  return "<s" + std::to_string(i) + ">";
}

// Returns -1 for a character that is not in the vocabulary.
inline int char_token(char c) {
  if (c == ',') return kComma;
  if (c == '+') return kPlus;
  if (c == '-') return kMinus;
  if (c >= '0' && c <= '9') return kDigit0 + (c - '0');
  if (c >= 'A' && c <= 'Z') return kFirstSymbol + (c - 'A');
  if (c >= 'a' && c <= 'z') return kFirstSymbol + 26 + (c - 'a');
  return -1;
}

inline std::vector<std::string> token_table(int alphabet) {
  std::vector<std::string> out;
  for (int t = 0; t < vocab_size(alphabet); ++t) out.push_back(token_text(static_cast<uint16_t>(t)));
  return out;
}

}  // namespace popebench::vocab
