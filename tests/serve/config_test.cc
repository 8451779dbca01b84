// The server's configuration file (server/config.cc): what it refuses, and
// where it says the fault is.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "server.h"

namespace charter::server {
namespace {

namespace fs = std::filesystem;

absl::Status Load(const std::string& text, ServerOptions* options) {
  fs::path path = fs::temp_directory_path() / ("charter-config-test-" + std::to_string(getpid()) + ".json");
  std::ofstream(path, std::ios::binary) << text;
  absl::Status s = LoadConfig(path.string(), options);
  fs::remove(path);
  return s;
}

TEST(ConfigTest, AcceleratorsAreRead) {
  ServerOptions options;
  ASSERT_TRUE(Load(R"({"mapping": {"accelerators": ["nvidia.com/gpu", "amd.com/gpu"]}})", &options).ok());
  EXPECT_EQ(options.mapping.accelerators, (std::vector<std::string>{"nvidia.com/gpu", "amd.com/gpu"}));
}

// A repeated accelerator would count each of its requests twice in `gpus`.
TEST(ConfigTest, AnAcceleratorGivenTwiceIsRefused) {
  ServerOptions options;
  absl::Status s =
      Load(R"({"mapping": {"accelerators": ["nvidia.com/gpu", "amd.com/gpu", "nvidia.com/gpu"]}})", &options);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  std::string message(s.message());
  EXPECT_NE(message.find(".json:1:64: `accelerators`: `nvidia.com/gpu` is given twice (its requests would count "
                         "twice in `gpus`)"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace charter::server
