#include "common/files.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <thread>

#include "common/strings.h"

namespace charter::internal {
namespace {

absl::Status Errno(const std::string& path, std::string_view what, int e) {
  std::string message = Cat(path, ": ", what, ": ", std::strerror(e));
  if (e == ENOENT) return absl::NotFoundError(message);
  if (e == EACCES || e == EPERM) return absl::PermissionDeniedError(message);
  return absl::InvalidArgumentError(message);
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, std::string_view data) {
  if (path.empty()) return absl::InvalidArgumentError("the output path is empty");
  // Through a symlink to the file itself: renaming over the link would
  // replace the link and leave its target as it was.
  std::string target = path;
  mode_t mode = 0644;
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    // A rename would replace a device, a FIFO or a socket with a regular
    // file (as root, `-o /dev/null` would remove the device): refused.
    if (!S_ISREG(st.st_mode)) {
      return absl::InvalidArgumentError(
          Cat(path, ": not a regular file (",
              S_ISDIR(st.st_mode)    ? "a directory"
              : S_ISCHR(st.st_mode)  ? "a character device"
              : S_ISBLK(st.st_mode)  ? "a block device"
              : S_ISFIFO(st.st_mode) ? "a FIFO"
              : S_ISSOCK(st.st_mode) ? "a socket"
                                     : "not a file",
              "): refusing to replace it"));
    }
    mode = st.st_mode & 07777;
    char resolved[PATH_MAX];
    if (realpath(path.c_str(), resolved) != nullptr) target = resolved;
  }
  // Unique per process and thread, so concurrent writers never share one.
  std::string tmp = Cat(target, ".tmp.", getpid(), ".",
                        std::hash<std::thread::id>{}(std::this_thread::get_id()));
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return Errno(path, "cannot write", errno);
  auto abandon = [&](std::string_view what, int e) {
    if (fd >= 0) close(fd);
    unlink(tmp.c_str());
    return Errno(path, what, e);
  };
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return abandon("cannot write", errno);
    }
    done += static_cast<size_t>(n);
  }
  // The umask applied to open(); the old file's permissions are wanted.
  if (fchmod(fd, mode) != 0 || fsync(fd) != 0) return abandon("cannot write", errno);
  int closed = close(fd);
  fd = -1;
  if (closed != 0) return abandon("cannot write", errno);
  if (rename(tmp.c_str(), target.c_str()) != 0) return abandon("cannot rename into place", errno);
  // Make the rename itself durable.
  size_t slash = target.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return absl::OkStatus();
}

}  // namespace charter::internal
