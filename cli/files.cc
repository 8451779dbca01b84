// Whole-file, size-limited reads with errors that name the file.
#include "files.h"

#include <exception>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <string>

#include "absl/strings/str_cat.h"

namespace charter::cli {
namespace {

absl::Status CannotRead(const std::string& path, int error) {
  std::string message = absl::StrCat(path, ": cannot read: ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  return absl::InvalidArgumentError(message);
}

absl::Status TooLarge(const std::string& path, size_t max_bytes) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": cannot read: larger than the limit of ", max_bytes, " bytes"));
}

// An open file descriptor, closed on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::StatusOr<struct stat> OpenAndStat(const std::string& path, const Fd& fd) {
  if (fd.get() < 0) return CannotRead(path, errno);
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return CannotRead(path, errno);
  if (S_ISDIR(st.st_mode)) return CannotRead(path, EISDIR);
  return st;
}

// Reads `fd` until end of file into `text`, never holding more than
// max_bytes; `path` names it in errors.
absl::Status ReadAll(int fd, const std::string& path, size_t max_bytes, std::string* text) {
  // Read until end of file: the size from fstat is only a hint (the file may
  // change, or be a pipe).
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return CannotRead(path, errno);
    }
    if (n == 0) break;
    if (static_cast<size_t>(n) > max_bytes - text->size()) return TooLarge(path, max_bytes);
    text->append(buffer, static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

bool stdin_read = false;

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  InputStage stage(path, "reading it");
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  absl::StatusOr<struct stat> st = OpenAndStat(path, fd);
  if (!st.ok()) return st.status();
  if (S_ISREG(st->st_mode) && static_cast<unsigned long long>(st->st_size) > max_bytes) {
    return TooLarge(path, max_bytes);
  }
  std::string text;
  if (S_ISREG(st->st_mode)) text.reserve(static_cast<size_t>(st->st_size));
  if (absl::Status read = ReadAll(fd.get(), path, max_bytes, &text); !read.ok()) return read;
  return text;
}

absl::StatusOr<std::string> ReadInput(const std::string& path, size_t max_bytes) {
  if (path != kStdinPath) return ReadFile(path, max_bytes);
  const std::string name = InputName(path);
  if (stdin_read) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": cannot read: standard input was read already"));
  }
  stdin_read = true;
  InputStage stage(name, "reading it");
  std::string text;
  if (absl::Status read = ReadAll(STDIN_FILENO, name, max_bytes, &text); !read.ok()) return read;
  return text;
}

std::string InputName(const std::string& path) { return path == kStdinPath ? "<stdin>" : path; }

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

absl::Status CheckNotAnInput(const std::string& output, const std::vector<std::string>& inputs,
                             std::string_view what) {
  if (output.empty() || output == "-") return absl::OkStatus();
  auto refuse = [&](const std::string& input) {
    return absl::InvalidArgumentError(absl::StrCat(output, ": is an input of this command (", input,
                                                   "): refusing to overwrite it with ", std::string(what)));
  };
  for (const std::string& input : inputs) {
    if (input.empty() || input == kStdinPath) continue;
    if (SameFile(input, output)) return refuse(input);
    // A directory input (--policies DIR) reads its files: none may be the output.
    std::error_code error;
    if (std::filesystem::is_directory(input, error)) {
      for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(input, error)) {
        if (SameFile(entry.path().string(), output)) return refuse(entry.path().string());
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckReadable(const std::string& path) {
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  absl::StatusOr<struct stat> st = OpenAndStat(path, fd);
  return st.status();
}

namespace {
thread_local std::string stage_file;
thread_local std::string stage_name;
}  // namespace

InputStage::InputStage(std::string file, std::string stage)
    : saved_file_(stage_file), saved_stage_(stage_name), exceptions_(std::uncaught_exceptions()) {
  stage_file = std::move(file);
  stage_name = std::move(stage);
}

InputStage::~InputStage() {
  // Unwinding: keep the innermost stage for main() to report.
  if (std::uncaught_exceptions() > exceptions_) return;
  stage_file = std::move(saved_file_);
  stage_name = std::move(saved_stage_);
}

void InputStage::Clear() {
  stage_file.clear();
  stage_name.clear();
}

std::string InputStage::OutOfMemoryMessage() {
  if (stage_name.empty()) return "out of memory";
  return stage_file + ": out of memory while " + stage_name;
}

std::string OnLine(const std::string& path, size_t line, const std::string& message) {
  std::string prefix = path + ":1:";
  std::string at = path + ":" + std::to_string(line) + ":";
  if (message.compare(0, prefix.size(), prefix) == 0) return at + message.substr(prefix.size());
  if (message.compare(0, 2, "1:") == 0) return at + message.substr(2);
  return at + " " + message;
}

size_t CharactersBefore(std::string_view line, size_t offset) {
  size_t n = 0;
  for (size_t i = 0; i < offset && i < line.size(); ++i) n += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
  return n;
}

}  // namespace charter::cli
