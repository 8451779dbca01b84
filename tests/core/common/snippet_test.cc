// AppendSnippet, the underline renderer of diagnostics and explain: one line
// or several, tabs and multi-byte characters kept in line, labels, colours.
#include "common/snippet.h"

#include <string>

#include "gtest/gtest.h"

namespace charter::internal {
namespace {

std::string Render(const SourceFile& source, Span span, const SnippetStyle& style, size_t* width = nullptr) {
  std::string out;
  size_t w = AppendSnippet(&out, source, span, style);
  if (width != nullptr) *width = w;
  return out;
}

TEST(SnippetTest, OneLine) {
  SourceFile source("p.cedar", "permit(principal, action, resource) when { && };");
  size_t width = 0;
  EXPECT_EQ(Render(source, Span{43, 45}, {}, &width),
            "  |\n"
            "1 | permit(principal, action, resource) when { && };\n"
            "  | " + std::string(43, ' ') + "^^\n");
  EXPECT_EQ(width, 1u);
}

// A line longer than 160 columns is shown as a window of 160 from 40
// columns before the span, cut with `…` (issue 15: a 960 KB one-line file
// with 100 errors wrote 96 MB).
TEST(SnippetTest, ALongLineIsShownAsAWindow) {
  std::string text = std::string(1000, 'a') + "XY" + std::string(1000, 'b');
  SourceFile source("p.cedar", text);
  std::string out = Render(source, Span{1000, 1002}, {});
  std::string shown = "…" + std::string(40, 'a') + "XY" + std::string(118, 'b') + "…";
  EXPECT_EQ(out, "  |\n"
                 "1 | " + shown + "\n"
                 "  | " + std::string(41, ' ') + "^^\n");
  // At the start of the line, nothing is cut before it.
  out = Render(source, Span{2, 3}, {});
  EXPECT_EQ(out, "  |\n"
                 "1 | " + std::string(160, 'a') + "…\n"
                 "  |   ^\n");
  // A span that runs past the window is underlined to the window's end.
  out = Render(source, Span{1000, 1900}, {});
  EXPECT_NE(out.find(std::string(41, ' ') + std::string(120, '^') + "\n"), std::string::npos) << out;
  EXPECT_LT(out.size(), 400u);
}

// Control bytes in the source line are shown as their pictures, one column
// each: no escape sequence reaches the terminal, and the underline lines up.
TEST(SnippetTest, ControlBytesAreShownAsPictures) {
  SourceFile source("p.cedar", "when { \"a\x1b[31m\x01\x7f\" == x };");
  std::string out = Render(source, Span{21, 22}, {});
  EXPECT_EQ(out,
            "  |\n"
            "1 | when { \"a\xE2\x90\x9B[31m\xE2\x90\x81\xE2\x90\xA1\" == x };\n"
            "  | " + std::string(21, ' ') + "^\n");
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
}

TEST(SnippetTest, AnEmptySpanIsOneColumn) {
  SourceFile source("p.cedar", "permit(principal, action, resource)");
  EXPECT_EQ(Render(source, Span{35, 35}, {}),
            "  |\n"
            "1 | permit(principal, action, resource)\n"
            "  | " + std::string(35, ' ') + "^\n");
}

TEST(SnippetTest, FirstLineOnlyByDefault) {
  SourceFile source("p.cedar", "when {\n  a &&\n  b\n};");
  EXPECT_EQ(Render(source, Span{5, 17}, {}),
            "  |\n"
            "1 | when {\n"
            "  |      ^\n");
}

TEST(SnippetTest, SeveralLinesWithLocationAndLabel) {
  std::string text = "x\nx\nx\nx\nx\nx\nx\nx\nwhen {\n\t a &&\n  b\n};";
  SourceFile source("p.cedar", text);
  SnippetStyle style;
  style.max_lines = 6;
  style.location = true;
  style.label = "false";
  size_t width = 0;
  // From `{` on line 9 to `b` on line 11: the second line from its first
  // non-blank, the tab kept.
  EXPECT_EQ(Render(source, Span{21, 33}, style, &width),
            "  --> p.cedar:9:6\n"
            "   |\n"
            "9  | when {\n"
            "   |      ^\n"
            "10 | \t a &&\n"
            "   | \t ^^^^\n"
            "11 |   b\n"
            "   |   ^ false\n");
  EXPECT_EQ(width, 2u);
}

// PositionOf counts columns from per-block counts (issue 15: counting from
// the line's start made a listing of one long line quadratic): it agrees
// with counting every scalar, on lines that cross many blocks, with
// multi-byte characters on both sides of the block boundaries.
TEST(SourceFileTest, PositionsOnLongLinesAgreeWithCounting) {
  std::string text = "first\n";
  for (int i = 0; i < 5000; ++i) text += (i % 7 == 0) ? "\xC3\xA9\xE2\x82\xAC" : "ab";
  text += "\n\n";
  for (int i = 0; i < 3000; ++i) text += "x\xF0\x9F\x98\x80";
  SourceFile source("p.cedar", text);
  uint32_t line = 1, column = 1;
  size_t i = 0;
  for (;;) {  // scalar by scalar
    SourceFile::Position p = source.PositionOf(static_cast<uint32_t>(i));
    ASSERT_EQ(p.line, line) << i;
    ASSERT_EQ(p.column, column) << i;
    if (i == text.size()) break;
    size_t next = i + 1;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i = next;
  }
  EXPECT_EQ(SourceFile("e", "").PositionOf(0).column, 1u);
}

TEST(SnippetTest, ColumnsCountScalarValues) {
  SourceFile source("p.cedar", "\"é\" == x");
  EXPECT_EQ(Render(source, Span{8, 9}, {}),
            "  |\n"
            "1 | \"é\" == x\n"
            "  | " + std::string(7, ' ') + "^\n");
}

TEST(SnippetTest, Colours) {
  SourceFile source("p.cedar", "a");
  SnippetStyle style;
  style.gutter = "<g>";
  style.mark = "<m>";
  style.reset = "</>";
  style.label = "L";
  EXPECT_EQ(Render(source, Span{0, 1}, style),
            "<g>  |</>\n"
            "<g>1 |</> a\n"
            "<g>  |</> <m>^ L</>\n");
  style.colour_blanks = false;
  style.location = true;
  EXPECT_EQ(Render(source, Span{0, 1}, style),
            " <g>--> </>p.cedar:1:1\n"
            "  <g>|</>\n"
            "<g>1 |</> a\n"
            "  <g>|</> <m>^ L</>\n");
}

}  // namespace
}  // namespace charter::internal
