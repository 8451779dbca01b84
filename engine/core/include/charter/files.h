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
// leads to, even a dangling one), syncs it and renames it into place, so
// that `path` is either the old file or the whole new one; an existing file
// keeps its owner, group and permissions. Errors name the path: "PATH:
// cannot write: No space left on device". An empty path, a path that names
// something other than a regular file (a directory, a device, a FIFO, a
// socket), a file with more than one hard link (the new file would have
// this name only) and a file whose owner the writer cannot give the new one
// (another user's, unless the writer is root) are refused: "PATH: it has 2
// hard links, which a new file in its place would split: refusing to
// replace it". On any failure the temporary file is removed. The temporary
// file has one name for each file written, ".NAME.charter-tmp", and is
// locked while it is written (two writers of one file take turns): one that
// a process killed while writing leaves behind is reused, and so removed,
// by the next write of the file. (A tool that writes files ignores SIGXFSZ,
// as `charter` does, so that passing `ulimit -f` fails the write with EFBIG
// instead of killing it.)
CHARTER_API absl::Status WriteFileAtomically(const std::string& path, std::string_view data);

}  // namespace charter

#endif  // CHARTER_FILES_H_
