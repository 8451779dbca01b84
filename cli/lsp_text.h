// The text of a document open in an editor, as the language server keeps
// it: positions in LSP's terms (0-based lines, columns in UTF-16 code
// units) to byte offsets and back, and incremental edits applied by range.
#ifndef CHARTER_CLI_LSP_TEXT_H_
#define CHARTER_CLI_LSP_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace charter::cli::lsp {

// A place in a document as LSP counts it: a line (0-based; lines end at
// "\n", "\r\n" or "\r") and a column in UTF-16 code units.
struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
};

// Where lines start in a text, to turn positions into byte offsets and
// back. Invalid UTF-8 never fails: a byte that does not start a well-formed
// sequence counts as one code unit.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  // The byte offset of `p`: a line past the end is the end of the text, a
  // column past the end of its line is the end of the line, and a column
  // inside a character (between the halves of a surrogate pair) is the
  // start of that character.
  size_t OffsetOf(Position p) const;
  // The position of byte offset `offset` (clamped to the text).
  Position PositionOf(size_t offset) const;
  size_t line_count() const { return starts_.size(); }

 private:
  std::string_view text_;
  std::vector<size_t> starts_;
};

// Replaces the text between two positions with `with` (an LSP
// TextDocumentContentChangeEvent with a range). A range whose end comes
// before its start is taken as empty at the start.
void ApplyEdit(std::string* text, Position start, Position end, std::string_view with);

}  // namespace charter::cli::lsp

#endif  // CHARTER_CLI_LSP_TEXT_H_
