// Loading a bundle's bytes for the VM: owned, or mapped read-only from a
// file (zero-copy), 8-byte aligned either way (the verifier and the VM read
// the bundle's 8-byte scalars in place). Behind charter::Bundle.
#ifndef CHARTER_VM_BUNDLE_LOADER_H_
#define CHARTER_VM_BUNDLE_LOADER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace charter::internal {

// The bytes of one bundle, owned or mapped; immutable, shared by the copies
// of a Bundle and by the Engines built from it.
class BundleStorage {
 public:
  explicit BundleStorage(std::string bytes) : owned_(std::move(bytes)), view_(owned_) {}
  BundleStorage(void* map, size_t size) : map_(map), map_size_(size), view_(static_cast<char*>(map), size) {}
  ~BundleStorage();
  BundleStorage(const BundleStorage&) = delete;
  BundleStorage& operator=(const BundleStorage&) = delete;
  std::string_view view() const { return view_; }

 private:
  std::string owned_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::string_view view_;
};

// Maps the file read-only. NotFound or PermissionDenied if it cannot be
// opened, InvalidArgument if it is no regular file or is larger than
// max_bytes; every message starts with the path.
absl::StatusOr<std::shared_ptr<const BundleStorage>> MapBundleFile(const std::string& path, size_t max_bytes);

}  // namespace charter::internal

#endif  // CHARTER_VM_BUNDLE_LOADER_H_
