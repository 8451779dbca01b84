// WriteFileAtomically (common/files.h): a temporary file beside the target,
// locked while it is written, renamed into place.
#include "common/files.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/status/statusor.h"
#include "common/strings.h"

namespace charter::internal {
namespace {

absl::Status Errno(const std::string& path, std::string_view what, int e) {
  std::string message = Cat(path, ": ", what, ": ", std::strerror(e));
  if (e == ENOENT) return absl::NotFoundError(message);
  if (e == EACCES || e == EPERM) return absl::PermissionDeniedError(message);
  return absl::InvalidArgumentError(message);
}

absl::Status Refuse(const std::string& path, std::string_view why) {
  return absl::InvalidArgumentError(Cat(path, ": ", why, ": refusing to replace it"));
}

// The directory part of `path` with its slash ("" for a bare name, "/" for
// a name in the root).
std::string DirectoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return "";
  return path.substr(0, slash + 1);
}

// The name `path` leads to through symlinks, a dangling one included: its
// target is then the file to create, as a shell's `>` would. A link's
// relative target is read from the link's directory. At most 40 links, as
// the kernel follows (ELOOP).
absl::StatusOr<std::string> FollowLinks(const std::string& path) {
  std::string name = path;
  for (int links = 0; links <= 40; ++links) {
    struct stat st;
    if (lstat(name.c_str(), &st) != 0) {
      if (errno == ENOENT) return name;  // to create; its directory is checked by the open
      return Errno(path, "cannot write", errno);
    }
    if (!S_ISLNK(st.st_mode)) return name;
    char target[PATH_MAX];
    ssize_t n = readlink(name.c_str(), target, sizeof target);
    if (n < 0) return Errno(path, "cannot read the symlink", errno);
    if (static_cast<size_t>(n) == sizeof target) return Errno(path, "cannot read the symlink", ENAMETOOLONG);
    std::string next(target, static_cast<size_t>(n));
    name = next.front() == '/' ? next : DirectoryOf(name) + next;
  }
  return Errno(path, "cannot write", ELOOP);
}

// The temporary file of `target`: ".NAME.charter-tmp" beside it (a long
// NAME shortened, with a hash of the whole, to stay within NAME_MAX). One
// name per target, so that a writer killed midway leaves one file, which
// the next writer of the target reuses.
std::string TemporaryOf(const std::string& target) {
  std::string dir = DirectoryOf(target);
  std::string base = target.substr(dir.size());
  if (base.size() > 200) {
    uint64_t h = 14695981039346656037ull;  // FNV-1a
    for (unsigned char c : base) h = (h ^ c) * 1099511628211ull;
    base = Cat(base.substr(0, 180), ".", absl::Hex(h));
  }
  return Cat(dir, ".", base, ".charter-tmp");
}

// Opens the temporary file `tmp`, with its lock (flock, released when the
// process ends however it ends): a new file, or the one a writer killed
// midway left, emptied. A writer of the same target waits for the lock;
// then, when the file it opened was renamed into place or removed meanwhile,
// it opens the name again. A file there that this user did not make (not
// theirs, not a regular file, or with another name) is refused, so that
// nobody can hand the writer a file to fill.
absl::StatusOr<int> OpenTemporary(const std::string& path, const std::string& tmp) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = open(tmp.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) return Errno(path, "cannot write", errno);
    int locked;
    do {
      locked = flock(fd, LOCK_EX);
    } while (locked != 0 && errno == EINTR);
    // A file system without locks (ENOLCK, EOPNOTSUPP: some network and
    // FUSE mounts) is written unlocked: then only writers of one file at
    // one time could meet.
    if (locked != 0 && errno != ENOLCK && errno != EOPNOTSUPP && errno != ENOSYS) {
      int e = errno;
      close(fd);
      return Errno(path, Cat("cannot lock its temporary file ", tmp), e);
    }
    struct stat by_fd, by_name;
    if (fstat(fd, &by_fd) != 0 || lstat(tmp.c_str(), &by_name) != 0 || by_fd.st_dev != by_name.st_dev ||
        by_fd.st_ino != by_name.st_ino) {
      close(fd);  // taken by another writer meanwhile: open the name again
      continue;
    }
    if (!S_ISREG(by_fd.st_mode) || by_fd.st_nlink != 1 || by_fd.st_uid != geteuid()) {
      close(fd);
      return absl::InvalidArgumentError(
          Cat(path, ": its temporary file ", tmp,
              " is there and is not one this user left (another owner, another kind of file, or more names): "
              "remove it"));
    }
    if (ftruncate(fd, 0) != 0) {
      int e = errno;
      close(fd);
      return Errno(path, "cannot write", e);
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
  }
  return absl::UnavailableError(Cat(path, ": cannot write: its temporary file ", tmp, " keeps being replaced"));
}

std::string_view KindOf(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a file";
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, std::string_view data) {
  if (path.empty()) return absl::InvalidArgumentError("the output path is empty");
  // Through symlinks to the file itself: renaming over a link would replace
  // the link and leave its target as it was.
  absl::StatusOr<std::string> followed = FollowLinks(path);
  if (!followed.ok()) return followed.status();
  const std::string& target = *followed;
  mode_t mode = 0644;
  struct stat old;
  bool exists = lstat(target.c_str(), &old) == 0;
  if (!exists && errno != ENOENT) return Errno(path, "cannot write", errno);
  if (exists) {
    // A rename would replace a device, a FIFO or a socket with a regular
    // file (as root, `-o /dev/null` would remove the device); it would give
    // a file of several names a new one under this name only; it would
    // give the file to the user writing it.
    if (!S_ISREG(old.st_mode)) return Refuse(path, Cat("not a regular file (", KindOf(old.st_mode), ")"));
    if (old.st_nlink > 1) {
      return Refuse(path, Cat("it has ", old.st_nlink, " hard links, which a new file in its place would split"));
    }
    mode = old.st_mode & 07777;
  }
  std::string tmp = TemporaryOf(target);
  absl::StatusOr<int> opened = OpenTemporary(path, tmp);
  if (!opened.ok()) return opened.status();
  int fd = *opened;
  // Every failure from here removes the temporary file, under its lock.
  auto abandon = [&](absl::Status status) {
    unlink(tmp.c_str());
    close(fd);
    return status;
  };
  if (exists) {
    struct stat mine;
    if (fstat(fd, &mine) != 0) return abandon(Errno(path, "cannot write", errno));
    if ((mine.st_uid != old.st_uid || mine.st_gid != old.st_gid) && fchown(fd, old.st_uid, old.st_gid) != 0) {
      int e = errno;
      return abandon(Refuse(path, Cat("it belongs to user ", old.st_uid, " and group ", old.st_gid,
                                      ", which a new file in its place cannot keep (", std::strerror(e), ")")));
    }
  }
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return abandon(Errno(path, "cannot write", errno));
    }
    done += static_cast<size_t>(n);
  }
  // After fchown, which clears the set-user-ID and set-group-ID bits.
  if (fchmod(fd, mode) != 0 || fsync(fd) != 0) return abandon(Errno(path, "cannot write", errno));
  if (rename(tmp.c_str(), target.c_str()) != 0) return abandon(Errno(path, "cannot rename into place", errno));
  // Closed after the rename: the lock is held until the name is gone.
  if (close(fd) != 0) return Errno(path, "cannot write", errno);
  // Make the rename itself durable.
  std::string dir = DirectoryOf(target);
  int dfd = open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return absl::OkStatus();
}

}  // namespace charter::internal
