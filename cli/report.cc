// Exit codes, error lines and stdout writes for the `charter` tool.
#include "report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "charter/json.h"

namespace charter::cli {
namespace {

void PrintLines(absl::string_view prefix, absl::string_view raw) {
  std::string printable = Printable(raw, /*keep_newlines=*/true);
  absl::string_view message = printable;
  std::string out;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == absl::string_view::npos) end = message.size();
    absl::string_view line = message.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) {
      absl::StrAppend(&out, prefix, line, "\n");
    }
    start = end + 1;
  }
  if (out.empty()) {
    absl::StrAppend(&out, prefix, "unknown error\n");
  }
  std::fflush(stdout);
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string Printable(absl::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    // C1 controls, U+0080..U+009F: 0xC2 then 0x80..0x9F.
    bool c1 = c == 0xC2 && i + 1 < text.size() &&
              static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
              static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (c1) {
      absl::StrAppend(&out, "\\u{", absl::Hex(static_cast<unsigned char>(text[i + 1])), "}");
      ++i;
    } else if (c == '\n') {
      out += keep_newlines ? "\n" : "\\n";
    } else if (c == '\t') {
      out.push_back('\t');
    } else if (c == '\r') {
      // (A line break written CRLF stays a line break.)
      if (!(keep_newlines && i + 1 < text.size() && text[i + 1] == '\n')) out += "\\r";
    } else if (c == 0) {
      out += "\\0";
    } else if (c < 0x20 || c == 0x7F) {
      absl::StrAppend(&out, "\\u{", absl::Hex(c), "}");
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string OneLine(absl::string_view text) {
  std::string out(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string WithPath(absl::string_view path, absl::string_view message) {
  if (message.size() > path.size() && message.substr(0, path.size()) == path &&
      message[path.size()] == ':') {
    return std::string(message);
  }
  return absl::StrCat(path, ": ", message);
}

void PrintError(absl::string_view message) { PrintLines("charter: error: ", message); }

void PrintWarning(absl::string_view message) { PrintLines("charter: warning: ", message); }
void PrintNote(absl::string_view message) { PrintLines("charter: note: ", message); }

int Fail(const absl::Status& status) {
  PrintError(status.message());
  return kError;
}

bool WriteStdout(absl::string_view text) {
  errno = 0;
  size_t written = text.empty() ? 0 : std::fwrite(text.data(), 1, text.size(), stdout);
  if (written != text.size() || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    int e = errno;
    std::string message = "cannot write to stdout";
    if (e != 0) {
      message.append(": ");
      message.append(std::strerror(e));
    }
    PrintError(message);
    return false;
  }
  return true;
}

void AppendUidJson(std::string* out, const EntityUid& uid) {
  *out += "{\"type\":";
  AppendJsonQuoted(out, uid.type);
  *out += ",\"id\":";
  AppendJsonQuoted(out, uid.id);
  *out += "}";
}

}  // namespace charter::cli
