// Bundle bytes, owned or mapped (bundle_loader.h).
#include "vm/bundle_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/strings.h"

namespace charter::internal {

BundleStorage::~BundleStorage() {
  if (map_ != nullptr) munmap(map_, map_size_);
}

namespace {
absl::Status Errno(const std::string& path, std::string_view what) {
  int e = errno;
  std::string message = Cat(path, ": ", what, ": ", std::strerror(e));
  if (e == ENOENT) return absl::NotFoundError(message);
  if (e == EACCES || e == EPERM) return absl::PermissionDeniedError(message);
  return absl::InvalidArgumentError(message);
}
}  // namespace

absl::StatusOr<std::shared_ptr<const BundleStorage>> MapBundleFile(const std::string& path, size_t max_bytes) {
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
    return std::make_shared<const BundleStorage>(std::string());
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    absl::Status s = Errno(path, "cannot map");
    close(fd);
    return s;
  }
  close(fd);
  return std::make_shared<const BundleStorage>(map, size);
}

}  // namespace charter::internal
