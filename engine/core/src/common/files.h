// Writing a file so that it is never half-written: used by Bundle::WriteFile
// and by `charter fmt -w`.
#ifndef CHARTER_COMMON_FILES_H_
#define CHARTER_COMMON_FILES_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace charter::internal {

// Replaces the contents of `path` (the file a symlink leads to, if it is
// one, a dangling one included) with `data`: writes a temporary file beside
// it, with the old file's owner and permissions (0644 for a new file),
// syncs it, renames it into place and syncs the directory. So `path` is
// either the old file or the whole new one. The temporary file is
// ".NAME.charter-tmp", locked while it is written: two writers of one file
// take turns, and one a writer killed midway left is reused by the next.
// Refused before anything is written: an empty path, a path to something
// other than a regular file, a file with several hard links (a rename would
// split them), and, after making the temporary file, a file whose owner the
// new one cannot keep (another user's, for a writer that is not root).
// Errors name `path` and say what failed: NotFound, PermissionDenied, or
// InvalidArgument for anything else.
absl::Status WriteFileAtomically(const std::string& path, std::string_view data);

}  // namespace charter::internal

#endif  // CHARTER_COMMON_FILES_H_
