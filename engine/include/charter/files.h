// Replacing a file whole: what Bundle::WriteFile does for bundles, for any
// text a tool rewrites in place (`charter fmt --write`).
#ifndef CHARTER_FILES_H_
#define CHARTER_FILES_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "charter/export.h"

namespace charter {

// Writes `data` to a temporary file beside `path` (beside the file a symlink
// names), syncs it and renames it into place, so that `path` is either the
// old file or the whole new one; an existing file keeps its permissions.
// Errors name the path: "PATH: cannot write: No space left on device". An
// empty path, and a path that names something other than a regular file (a
// directory, a device, a FIFO, a socket), are refused before anything is
// written. On any failure the temporary file is removed. (A process killed
// while writing, for example by SIGXFSZ when it passes `ulimit -f`, cannot
// remove it: a tool that writes files ignores SIGXFSZ, as `charter` does, so
// that the write fails with EFBIG instead.)
CHARTER_API absl::Status WriteFileAtomically(const std::string& path, std::string_view data);

}  // namespace charter

#endif  // CHARTER_FILES_H_
