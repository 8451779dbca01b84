// Bundle storage: owned bytes or a read-only memory map; atomic writes.
#include "charter/bundle.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/files.h"
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
  return internal::WriteFileAtomically(path, bytes());
}

}  // namespace charter
