// Writing a file so that it is never half-written: used by Bundle::WriteFile
// and by `charter fmt -w`.
#ifndef CHARTER_COMMON_FILES_H_
#define CHARTER_COMMON_FILES_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace charter::internal {

// Replaces the contents of `path` (the file a symlink points to, if it is
// one) with `data`: writes a temporary file beside it, with the old file's
// permissions (0644 for a new file), syncs and closes it, renames it into
// place and syncs the directory. So `path` is either the old file or the
// whole new one. Errors name `path` and say what failed: NotFound,
// PermissionDenied, or InvalidArgument for anything else.
absl::Status WriteFileAtomically(const std::string& path, std::string_view data);

}  // namespace charter::internal

#endif  // CHARTER_COMMON_FILES_H_
