// Bundle storage: owned bytes or a read-only memory map; atomic writes.
#include "charter/bundle.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/strings.h"

namespace charter {

using internal::Cat;
using internal::CatAppend;

class Bundle::Storage {
 public:
  explicit Storage(std::string bytes) : owned_(std::move(bytes)), view_(owned_) {}
  Storage(void* map, size_t size) : map_(map), map_size_(size), view_(static_cast<char*>(map), size) {}
  ~Storage() {
    if (map_ != nullptr) munmap(map_, map_size_);
  }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  std::string_view view() const { return view_; }

 private:
  std::string owned_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::string_view view_;
};

Bundle::Bundle(std::shared_ptr<const Storage> storage) : storage_(std::move(storage)) {}

Bundle Bundle::FromBytes(std::string bytes) {
  return Bundle(std::make_shared<const Storage>(std::move(bytes)));
}

std::string_view Bundle::bytes() const { return storage_->view(); }

namespace {
absl::Status Errno(const std::string& path, std::string_view what) {
  int e = errno;
  std::string message = Cat(path, ": ", what, ": ", std::strerror(e));
  if (e == ENOENT) return absl::NotFoundError(message);
  if (e == EACCES || e == EPERM) return absl::PermissionDeniedError(message);
  return absl::InvalidArgumentError(message);
}
}  // namespace

absl::StatusOr<Bundle> Bundle::FromFile(const std::string& path, size_t max_bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno(path, "cannot open");
  struct stat st;
  if (fstat(fd, &st) != 0) {
    absl::Status s = Errno(path, "cannot stat");
    close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(Cat(path, ": not a regular file"));
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size > max_bytes) {
    close(fd);
    return absl::InvalidArgumentError(
        Cat(path, ": ", size, " bytes, more than the limit of ", max_bytes));
  }
  if (size == 0) {
    close(fd);
    return Bundle::FromBytes(std::string());
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    absl::Status s = Errno(path, "cannot map");
    close(fd);
    return s;
  }
  close(fd);
  return Bundle(std::make_shared<const Storage>(map, size));
}

absl::Status Bundle::WriteFile(const std::string& path) const {
  std::string tmp = Cat(path, ".tmp.", getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(path, "cannot write");
  std::string_view data = bytes();
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status s = Errno(path, "cannot write");
      close(fd);
      unlink(tmp.c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  bool synced = fsync(fd) == 0;
  int sync_errno = errno;
  bool closed = close(fd) == 0;
  if (!synced || !closed) {
    if (!synced) errno = sync_errno;
    absl::Status s = Errno(path, "cannot write");
    unlink(tmp.c_str());
    return s;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    absl::Status s = Errno(path, "cannot rename into place");
    unlink(tmp.c_str());
    return s;
  }
  // Make the rename itself durable.
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return absl::OkStatus();
}

}  // namespace charter
