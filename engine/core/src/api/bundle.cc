// charter::Bundle: the public face of a bundle's bytes, which the VM stage
// loads (vm/bundle_loader.h); atomic writes.
#include "charter/bundle.h"

#include "common/files.h"
#include "common/status_macros.h"
#include "vm/bundle_loader.h"

namespace charter {

Bundle::Bundle(std::shared_ptr<const internal::BundleStorage> storage) : storage_(std::move(storage)) {}

Bundle Bundle::FromBytes(std::string bytes) {
  return Bundle(std::make_shared<const internal::BundleStorage>(std::move(bytes)));
}

std::string_view Bundle::bytes() const { return storage_->view(); }

absl::StatusOr<Bundle> Bundle::FromFile(const std::string& path, size_t max_bytes) {
  ASSIGN_OR_RETURN(std::shared_ptr<const internal::BundleStorage> storage,
                   internal::MapBundleFile(path, max_bytes));
  return Bundle(std::move(storage));
}

absl::Status Bundle::WriteFile(const std::string& path) const {
  return internal::WriteFileAtomically(path, bytes());
}

}  // namespace charter
