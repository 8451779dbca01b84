// charter::WriteFileAtomically.
#include "charter/files.h"

#include "common/files.h"

namespace charter {

absl::Status WriteFileAtomically(const std::string& path, std::string_view data) {
  return internal::WriteFileAtomically(path, data);
}

}  // namespace charter
