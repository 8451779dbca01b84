// Reading input files for the `charter` tool: whole, size-limited, with
// errors that name the file ("FILE: cannot read: No such file or directory").
#ifndef CHARTER_CLI_FILES_H_
#define CHARTER_CLI_FILES_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace charter::cli {

// Reads the whole file. Fails, with the path at the front of the message, if
// it cannot be opened or read, is a directory, or holds more than max_bytes.
absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes);

// OK if `path` can be opened for reading and is not a directory; for inputs
// that the library opens itself (bundles, which it maps), so that an
// unreadable file is reported the same way as for every other input.
absl::Status CheckReadable(const std::string& path);


}  // namespace charter::cli

#endif  // CHARTER_CLI_FILES_H_
