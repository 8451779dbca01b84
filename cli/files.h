// Reading input files for the `charter` tool: whole, size-limited, with
// errors that name the file ("FILE: cannot read: No such file or directory").
#ifndef CHARTER_CLI_FILES_H_
#define CHARTER_CLI_FILES_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace charter::cli {

// Reads the whole file. Fails, with the path at the front of the message, if
// it cannot be opened or read, is a directory, or holds more than max_bytes.
absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes);

// The path that names standard input: `--policies -`.
inline constexpr char kStdinPath[] = "-";

// Reads an input: the file (ReadFile), or standard input for "-", which can
// be read once in a process (a second read fails: a command given "-" twice
// would get nothing the second time).
absl::StatusOr<std::string> ReadInput(const std::string& path, size_t max_bytes);

// The name of an input in messages and positions: "<stdin>" for "-".
std::string InputName(const std::string& path);

// OK if `path` can be opened for reading and is not a directory; for inputs
// that the library opens itself (bundles, which it maps), so that an
// unreadable file is reported the same way as for every other input.
absl::Status CheckReadable(const std::string& path);

// Whether two paths name the same file (both exist and share device and
// inode: a symlink or a second name counts).
bool SameFile(const std::string& a, const std::string& b);

// Fails with InvalidArgument when `output` is one of `inputs` (SameFile; empty
// inputs and "-" are skipped; a directory stands for the files in it): "OUT: is an input of this command (IN):
// refusing to overwrite it with WHAT". No output of a command replaces its input.
absl::Status CheckNotAnInput(const std::string& output, const std::vector<std::string>& inputs,
                             std::string_view what);

// Messages about one line of a file of JSON lines (decision logs): the
// readers of a line say "1:COL: ..." (or "PATH:1:COL: ..."); OnLine makes it
// "PATH:LINE:COL: ...".
std::string OnLine(const std::string& path, size_t line, const std::string& message);

// The characters (UTF-8 code points) before byte `offset` of `line`: a
// column, counted from 0.
size_t CharactersBefore(std::string_view line, size_t offset);

// While one lives, the input being worked on and the stage (`"reading"`,
// `"loading the schema"`...), so that running out of memory says where:
// main() prints `FILE: out of memory while STAGE`. A guard left by an
// exception keeps its record for main() to read.
class InputStage {
 public:
  InputStage(std::string file, std::string stage);
  ~InputStage();
  InputStage(const InputStage&) = delete;
  InputStage& operator=(const InputStage&) = delete;

  // "FILE: out of memory while STAGE" for the innermost stage that was
  // live when the exception was thrown, or "out of memory" if none.
  static std::string OutOfMemoryMessage();
  // Forgets the record, after the exception has been handled.
  static void Clear();

 private:
  std::string saved_file_, saved_stage_;
  int exceptions_;
};

}  // namespace charter::cli

#endif  // CHARTER_CLI_FILES_H_
