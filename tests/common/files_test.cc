// WriteFileAtomically: whole files, kept permissions, symlinks followed,
// nothing left behind, clear errors.
#include "common/files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace charter::internal {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class WriteFileAtomicallyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("charter-files-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  fs::path dir_;
};

TEST_F(WriteFileAtomicallyTest, WritesANewFileWholeAndLeavesNoTemporary) {
  fs::path p = dir_ / "new.txt";
  ASSERT_TRUE(WriteFileAtomically(p.string(), "hello\n").ok());
  EXPECT_EQ(Read(p), "hello\n");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(WriteFileAtomicallyTest, KeepsTheOldPermissions) {
  fs::path p = dir_ / "script.sh";
  std::ofstream(p) << "old";
  ASSERT_EQ(chmod(p.c_str(), 0750), 0);
  ASSERT_TRUE(WriteFileAtomically(p.string(), "new").ok());
  struct stat st;
  ASSERT_EQ(stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  EXPECT_EQ(Read(p), "new");
}

TEST_F(WriteFileAtomicallyTest, WritesThroughASymlinkToItsTarget) {
  fs::path target = dir_ / "real.cedar";
  fs::path link = dir_ / "link.cedar";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  ASSERT_TRUE(WriteFileAtomically(link.string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(target), "new");
  EXPECT_EQ(Entries(), 2u);
}

TEST_F(WriteFileAtomicallyTest, AMissingDirectoryIsAnErrorNamingThePath) {
  fs::path p = dir_ / "no-such-dir" / "x";
  absl::Status s = WriteFileAtomically(p.string(), "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(std::string(s.message()).rfind(p.string() + ": cannot write: ", 0), 0u) << s;
}

TEST_F(WriteFileAtomicallyTest, RefusesWhatIsNotARegularFile) {
  // A FIFO stands for a device here: replacing either with a regular file
  // is what a rename would do.
  fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  absl::Status s = WriteFileAtomically(fifo.string(), "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), fifo.string() + ": not a regular file (a FIFO): refusing to replace it");
  EXPECT_TRUE(fs::is_fifo(fifo));
  s = WriteFileAtomically(dir_.string(), "x");
  EXPECT_EQ(s.message(), dir_.string() + ": not a regular file (a directory): refusing to replace it");
  EXPECT_EQ(Entries(), 1u);  // the FIFO, and no temporary
  s = WriteFileAtomically("", "x");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "the output path is empty");
}

}  // namespace
}  // namespace charter::internal
