#include "common/environment.hpp"

#include <ctime>
#include <unistd.h>

#include "common/version.hpp"

namespace popebench {

nlohmann::json environment_json(const std::string& device, int threads, const std::string& command, int gpu_index) {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  nlohmann::json env = {{"popebench_version", kPopebenchVersion}, {"git_commit", git_commit()}, {"compiler", compiler_id()},
                        {"device", device}, {"threads", threads}, {"host", host}, {"date", date}, {"command", command}};
  if (gpu_index >= 0) env["gpu_index"] = gpu_index;
  return env;
}

}  // namespace popebench
