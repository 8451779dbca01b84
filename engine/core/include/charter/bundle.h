// Bundle: a compiled policy set, the unit of deployment. A bundle is a
// FlatBuffers buffer (schema: engine/core/src/bytecode/bundle.fbs) that is
// self-describing and versioned. Bundles are produced by Compile() or read
// from a file; a bundle read from anywhere is untrusted until
// Engine::Create() has verified it.
#ifndef CHARTER_BUNDLE_H_
#define CHARTER_BUNDLE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/export.h"

namespace charter {

namespace internal {
class BundleStorage;  // vm/bundle_loader.h
}  // namespace internal

class CHARTER_API Bundle {
 public:
  // Maps the file read-only into memory (zero-copy). NotFound or
  // PermissionDenied if it cannot be opened, InvalidArgument if it is larger
  // than max_bytes.
  static absl::StatusOr<Bundle> FromFile(const std::string& path,
                                         size_t max_bytes = size_t{1} << 30);
  static Bundle FromBytes(std::string bytes);

  std::string_view bytes() const;

  // Writes the bundle to a temporary file beside `path` (beside the file a
  // symlink names), syncs it and renames it into place, so that `path` is
  // either the old file or the whole new one; an existing file keeps its
  // permissions.
  absl::Status WriteFile(const std::string& path) const;

 private:
  explicit Bundle(std::shared_ptr<const internal::BundleStorage> storage);
  std::shared_ptr<const internal::BundleStorage> storage_;
};

}  // namespace charter

#endif  // CHARTER_BUNDLE_H_
