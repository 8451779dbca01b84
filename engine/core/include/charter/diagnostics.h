// Diagnostics: faults in a user's input (policy text, JSON), each with a
// stable code, a byte span into its source, a one-line lowercase message and
// an optional help line. Render() shows them the way compilers do:
//
//   policies.cedar:3:44: error[CH0101]: unexpected `&&`
//     |
//   3 | permit(principal, action, resource) when { && };
//     |                                            ^^
//     = help: expected ...
#ifndef CHARTER_DIAGNOSTICS_H_
#define CHARTER_DIAGNOSTICS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "charter/export.h"

namespace charter {

// A half-open byte range [begin, end) into one source text.
struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;
};

enum class Severity { kError, kWarning };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string code;     // stable, e.g. "CH0101"; documented in docs/diagnostics.md
  Span span;
  std::string message;  // one line, lowercase, names in backticks
  std::string help;     // optional
};

// A source text with its display name; computes line and column (1-based,
// columns counted in Unicode scalar values) of byte offsets.
class CHARTER_API SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  struct Position {
    uint32_t line;
    uint32_t column;
  };
  Position PositionOf(uint32_t offset) const;
  std::string_view Line(uint32_t line) const;  // without its newline

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
  // The scalar values before each 4 KiB block of the text, so that a column
  // costs at most a block's count however long its line (issue 15: a
  // listing of one 400 KB line was quadratic).
  std::vector<uint32_t> block_scalars_;
  static constexpr uint32_t kBlock = 4096;
  uint32_t ScalarsBefore(uint32_t offset) const;
};

class CHARTER_API Diagnostics {
 public:
  void Add(Diagnostic d) { items_.push_back(std::move(d)); }
  // Keeps the first n diagnostics.
  void Truncate(size_t n) {
    if (items_.size() > n) items_.resize(n);
  }
  void Error(std::string code, Span span, std::string message, std::string help = "");
  bool has_errors() const;
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }

  // "file:line:col: error[CODE]: message", the source line, an underline and
  // the help line, for every diagnostic.
  std::string Render(const SourceFile& source, bool color = false) const;
  // Only the first line of each diagnostic: "file:line:col: message".
  std::string RenderShort(const SourceFile& source) const;
  // RenderShort's line, without the newline, for the first error (not
  // warning) at index `from` or later; empty when there is none. What a
  // failing Compile or Schema::Parse puts in its status message.
  std::string FirstErrorLine(const SourceFile& source, size_t from = 0) const;

 private:
  std::vector<Diagnostic> items_;
};

// A fault in JSON input (entities, requests, template links, scheduling
// state) is an InvalidArgument status whose message is one line,
// "SOURCE_NAME:LINE:COL: message", and which carries the fault as a
// Diagnostic with its code and its span in the JSON text. DiagnosticOf
// gives it back (nullopt for any other status), so that it can be rendered
// like a fault in policy text:
//
//   absl::StatusOr<Entities> entities = Entities::FromJson(json, "entities.json");
//   if (std::optional<Diagnostic> d = DiagnosticOf(entities.status())) {
//     Diagnostics one;
//     one.Add(*d);
//     std::cerr << one.Render(SourceFile("entities.json", std::string(json)));
//   }
CHARTER_API std::optional<Diagnostic> DiagnosticOf(const absl::Status& status);

}  // namespace charter

#endif  // CHARTER_DIAGNOSTICS_H_
