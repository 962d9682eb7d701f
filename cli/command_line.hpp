// What the words of a command line become: CLI11 validators that refuse bad values in one line,
// and the comma-separated lists (seeds, PEs, factors) parsed with their errors named.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "config/choices.hpp"

namespace popebench::cli {

// Refuses an empty value ("--data ''", "--seeds ''"): given but empty must not mean the default.
const CLI::Validator& non_empty();
// A plain decimal integer in [lo, hi]: refuses "-1" for a count, and values that would saturate
// or wrap ("99999999999999999999") instead of passing them on silently.
CLI::Validator integer_in(long long lo, long long hi);
// A finite number in [lo, hi] (CLI::Range lets NaN through: every comparison with it is false).
CLI::Validator number_in(double lo, double hi);

// The command line as one string (recorded by every run JSON).
std::string command_line(int argc, char** argv);
// Value of `--name V` or `--name=V` in argv, or "" (presets must be known before parsing).
std::string prescan_option(int argc, char** argv, const std::string& name);

// "a,b,c" -> {a, b, c}; an empty item ("a,,b", "a,", ",a") is a UserError naming `what`, since
// it is most likely a value typed wrong (dropping it would train a run fewer than asked for).
std::vector<std::string> split_list(const std::string& s, const std::string& what);
// "0,1,2" -> seeds; a UserError naming the bad item otherwise, a repeated seed, or an empty list.
std::vector<uint64_t> parse_seeds(const std::string& s);
// "a,b" -> items, refusing an empty list and a repeated item (`what` names the option).
std::vector<std::string> parse_distinct_list(const std::string& s, const std::string& what);
// --rope-variants: "none" -> no extra rows, else its distinct words as RoPE scalings
// (report/extrapolation.hpp's rope_variants_from).
std::vector<RopeScaling> parse_rope_variants(const std::string& s);
// "1,2,5" -> integers from 0 to 1,000,000 (`what` names the option in a message); a range
// narrower than that is the caller's to check.
std::vector<int> parse_int_list(const std::string& s, const std::string& what);

}  // namespace popebench::cli
