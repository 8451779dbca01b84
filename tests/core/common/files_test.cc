// WriteFileAtomically: whole files, kept owners and permissions, symlinks
// followed (dangling ones too), hard links refused, one temporary file a
// target which a write killed midway leaves for the next to reuse, clear
// errors.
#include "common/files.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace charter::internal {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

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
  ASSERT_THAT(WriteFileAtomically(p.string(), "hello\n"), IsOk());
  EXPECT_EQ(Read(p), "hello\n");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(WriteFileAtomicallyTest, KeepsTheOldPermissions) {
  fs::path p = dir_ / "script.sh";
  std::ofstream(p) << "old";
  ASSERT_EQ(chmod(p.c_str(), 0750), 0);
  ASSERT_THAT(WriteFileAtomically(p.string(), "new"), IsOk());
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
  ASSERT_THAT(WriteFileAtomically(link.string(), "new"), IsOk());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(target), "new");
  EXPECT_EQ(Entries(), 2u);
}

TEST_F(WriteFileAtomicallyTest, AMissingDirectoryIsAnErrorNamingThePath) {
  fs::path p = dir_ / "no-such-dir" / "x";
  absl::Status s = WriteFileAtomically(p.string(), "x");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound, testing::StartsWith(p.string() + ": cannot write: ")));
}

TEST_F(WriteFileAtomicallyTest, RefusesWhatIsNotARegularFile) {
  // A FIFO stands for a device here: replacing either with a regular file
  // is what a rename would do.
  fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  absl::Status s = WriteFileAtomically(fifo.string(), "x");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          fifo.string() + ": not a regular file (a FIFO): refusing to replace it"));
  EXPECT_TRUE(fs::is_fifo(fifo));
  s = WriteFileAtomically(dir_.string(), "x");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          dir_.string() + ": not a regular file (a directory): refusing to replace it"));
  EXPECT_EQ(Entries(), 1u);  // the FIFO, and no temporary
  s = WriteFileAtomically("", "x");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, "the output path is empty"));
}

TEST_F(WriteFileAtomicallyTest, WritesThroughADanglingSymlinkToTheFileItNames) {
  fs::path link = dir_ / "out.bundle";
  fs::create_symlink("built/real.bundle", link);  // relative, read from the link's directory
  fs::create_directories(dir_ / "built");
  ASSERT_THAT(WriteFileAtomically(link.string(), "new"), IsOk());
  EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced by a file";
  EXPECT_EQ(fs::read_symlink(link), "built/real.bundle");
  EXPECT_EQ(Read(dir_ / "built" / "real.bundle"), "new");
  // A chain of links, the last dangling, and a loop.
  fs::create_symlink("out.bundle", dir_ / "to-out");
  fs::remove(dir_ / "built" / "real.bundle");
  ASSERT_THAT(WriteFileAtomically((dir_ / "to-out").string(), "again"), IsOk());
  EXPECT_TRUE(fs::is_symlink(dir_ / "to-out") && fs::is_symlink(link));
  EXPECT_EQ(Read(dir_ / "built" / "real.bundle"), "again");
  fs::create_symlink("loop-b", dir_ / "loop-a");
  fs::create_symlink("loop-a", dir_ / "loop-b");
  absl::Status s = WriteFileAtomically((dir_ / "loop-a").string(), "x");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          (dir_ / "loop-a").string() + ": cannot write: Too many levels of symbolic links"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "loop-a") && fs::is_symlink(dir_ / "loop-b"));
  EXPECT_EQ(Entries(), 5u);  // out.bundle, built, to-out, loop-a, loop-b: no temporary
}

TEST_F(WriteFileAtomicallyTest, RefusesToSplitHardLinks) {
  fs::path p = dir_ / "policies.cedar";
  std::ofstream(p) << "old";
  fs::create_hard_link(p, dir_ / "second-name.cedar");
  absl::Status s = WriteFileAtomically(p.string(), "new");
  EXPECT_THAT(s,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       p.string() + ": it has 2 hard links, which a new file in its place would split: refusing to replace it"));
  EXPECT_EQ(Read(p), "old");
  EXPECT_EQ(fs::hard_link_count(p), 2u);
  EXPECT_EQ(Entries(), 2u);
}

// The owner and group are kept. As root (how CI runs) the file belongs to
// another user; otherwise to this user, in another of their groups if they
// have one.
TEST_F(WriteFileAtomicallyTest, KeepsTheOwnerAndGroup) {
  fs::path p = dir_ / "entities.json";
  std::ofstream(p) << "old";
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (geteuid() == 0) {
    uid = 4242, gid = 4343;
  } else {
    gid_t groups[64];
    int n = getgroups(64, groups);
    for (int i = 0; i < n; ++i) {
      if (groups[i] != getegid()) gid = groups[i];
    }
  }
  ASSERT_EQ(chown(p.c_str(), uid, gid), 0);
  ASSERT_EQ(chmod(p.c_str(), 0640), 0);
  ASSERT_THAT(WriteFileAtomically(p.string(), "new"), IsOk());
  struct stat st;
  ASSERT_EQ(stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, uid);
  EXPECT_EQ(st.st_gid, gid);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(Read(p), "new");
  EXPECT_EQ(Entries(), 1u);
}

// A writer that cannot give the new file the old one's owner refuses, and
// leaves the file and no temporary. (Needs a second user: as root, a child
// process becomes one.)
TEST_F(WriteFileAtomicallyTest, RefusesWhereTheOwnerCannotBeKept) {
  if (geteuid() != 0) {
    // Without root there is no file of another user to write here; the
    // refusal is the branch above, which the root run takes.
    EXPECT_THAT(WriteFileAtomically((dir_ / "mine").string(), "x"), IsOk());
    return;
  }
  fs::path p = dir_ / "theirs.json";
  std::ofstream(p) << "old";
  ASSERT_EQ(chown(p.c_str(), 4242, 4242), 0);
  ASSERT_EQ(chmod(p.c_str(), 0666), 0);
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (setgid(4343) != 0 || setuid(4343) != 0) _exit(2);
    absl::Status s = WriteFileAtomically(p.string(), "new");
    bool ok = s.code() == absl::StatusCode::kInvalidArgument &&
              s.message() == p.string() +
                                 ": it belongs to user 4242 and group 4242, which a new file in its place cannot "
                                 "keep (Operation not permitted): refusing to replace it";
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the write as another user was not refused with the message expected";
  struct stat st;
  ASSERT_EQ(stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 4242u);
  EXPECT_EQ(Read(p), "old");
  EXPECT_EQ(Entries(), 1u);
}

// A write killed midway (SIGXFSZ past a file size limit, as `charter` would
// be if it did not ignore the signal) leaves the temporary file; the next
// write of the same file reuses it, so that three killed writes and a good
// one leave the file alone.
TEST_F(WriteFileAtomicallyTest, AWriteKilledMidwayLeavesATemporaryTheNextReuses) {
  fs::path p = dir_ / "big.bundle";
  std::string data(1 << 20, 'x');
  for (int i = 0; i < 3; ++i) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      struct rlimit limit = {64 << 10, 64 << 10};
      signal(SIGXFSZ, SIG_DFL);
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(2);
      (void)WriteFileAtomically(p.string(), data);
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) << "the writer was not killed midway";
    EXPECT_FALSE(fs::exists(p));
    EXPECT_LE(Entries(), 1u) << "each killed write left a temporary file of its own";
  }
  ASSERT_THAT(WriteFileAtomically(p.string(), "done"), IsOk());
  EXPECT_EQ(Read(p), "done");
  EXPECT_EQ(Entries(), 1u) << "a killed write's temporary file is still there";
}

// Someone else's file at the temporary file's name is not written into.
TEST_F(WriteFileAtomicallyTest, RefusesATemporaryItDidNotMake) {
  fs::path p = dir_ / "out.json";
  fs::path tmp = dir_ / ".out.json.charter-tmp";
  std::ofstream(dir_ / "precious") << "precious";
  fs::create_hard_link(dir_ / "precious", tmp);
  absl::Status s = WriteFileAtomically(p.string(), "new");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          p.string() + ": its temporary file " + tmp.string() +
                              " is there and is not one this user left (another owner, another kind of file, or "
                              "more names): remove it"));
  EXPECT_EQ(Read(dir_ / "precious"), "precious");
  EXPECT_FALSE(fs::exists(p));
}

}  // namespace
}  // namespace charter::internal
