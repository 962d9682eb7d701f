// The one error type meant for the user: the CLI prints what() on one line and exits non-zero.
// Anything else that escapes is a bug and is reported as one (cli/main.cpp).
#pragma once
#include <stdexcept>

namespace popebench {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace popebench
