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

// The decision log's rotation: a size (0: never) and the files kept, from 1.
TEST(ConfigTest, DecisionLogRotationIsRead) {
  ServerOptions options;
  EXPECT_EQ(options.decision_log_max_bytes, 0u);
  EXPECT_EQ(options.decision_log_keep, 5);
  ASSERT_TRUE(Load(R"({"decisionLog": {"maxBytes": 104857600, "keep": 3}})", &options).ok());
  EXPECT_EQ(options.decision_log_max_bytes, 104857600u);
  EXPECT_EQ(options.decision_log_keep, 3);
  absl::Status s = Load(R"({"decisionLog": {"keep": 0}})", &options);
  EXPECT_NE(std::string(s.message()).find(".json:1:26: `keep` must be a whole number from 1 to 1000"),
            std::string::npos)
      << s.message();
  s = Load(R"({"decisionLog": {"maxBytes": -1}})", &options);
  EXPECT_NE(std::string(s.message()).find("`maxBytes` must be a whole number from 0 to"), std::string::npos)
      << s.message();
}

// --admin-listen: a unix socket or a loopback address; the listener is plain
// HTTP, so any other address is refused.
TEST(AdminListenTest, UnixAndLoopbackAreRead) {
  ServerOptions unix_socket;
  ASSERT_TRUE(ParseAdminListen("unix:/run/charter/admin.sock", &unix_socket).ok());
  EXPECT_EQ(unix_socket.admin_unix, "/run/charter/admin.sock");
  EXPECT_TRUE(unix_socket.has_admin());
  ServerOptions v4;
  ASSERT_TRUE(ParseAdminListen("127.0.0.1:9090", &v4).ok());
  EXPECT_EQ(v4.admin_host, "127.0.0.1");
  EXPECT_EQ(v4.admin_port, 9090);
  ServerOptions v4_other;
  ASSERT_TRUE(ParseAdminListen("127.0.0.2:0", &v4_other).ok());
  EXPECT_EQ(v4_other.admin_port, 0);
  ServerOptions v6;
  ASSERT_TRUE(ParseAdminListen("[::1]:9090", &v6).ok());
  EXPECT_EQ(v6.admin_host, "::1");
  EXPECT_FALSE(ServerOptions().has_admin());
}

TEST(AdminListenTest, OtherAddressesAreRefused) {
  for (const char* listen : {"10.0.0.1:9090", "0.0.0.0:9090", ":9090", "[::]:9090", "[2001:db8::1]:9090",
                             "localhost:9090", "192.168.1.1:0"}) {
    ServerOptions options;
    absl::Status s = ParseAdminListen(listen, &options);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << listen;
    EXPECT_NE(std::string(s.message()).find(std::string("`") + listen + "` is not a loopback address"),
              std::string::npos)
        << s.message();
    EXPECT_FALSE(options.has_admin()) << listen;
  }
  ServerOptions options;
  EXPECT_FALSE(ParseAdminListen("unix:", &options).ok());
  EXPECT_FALSE(ParseAdminListen(std::string("unix:/") + std::string(200, 'x'), &options).ok());
  EXPECT_FALSE(ParseAdminListen("127.0.0.1:99999", &options).ok());
  EXPECT_FALSE(options.has_admin());
}

TEST(ConfigTest, ClientChainDepthIsALimit) {
  ServerOptions options;
  ASSERT_TRUE(Load(R"({"limits": {"clientChainDepth": 2}})", &options).ok());
  EXPECT_EQ(options.client_chain_depth, 2);
  EXPECT_FALSE(Load(R"({"limits": {"clientChainDepth": 17}})", &options).ok());
}

}  // namespace
}  // namespace charter::server
