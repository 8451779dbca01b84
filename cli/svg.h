// Writing the report's files by hand (pictures.h, decisions.h): plain SVG
// (text, bars and legends, each figure a label and a <title> tooltip), CSV
// and JSON strings, numbers and durations as the charts print them, and UTC
// times. Nothing here knows what is drawn.
#ifndef CHARTER_CLI_SVG_H_
#define CHARTER_CLI_SVG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace charter::cli::svg {

inline constexpr double kDay = 86400;

// Text for XML (an attribute or an element): & < > " ' escaped, control
// characters (which XML 1.0 cannot hold) made '?'.
std::string Esc(std::string_view s);

// A JSON string literal, quotes included.
std::string JsonString(std::string_view s);

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string CsvField(std::string_view s);

// A number with at most three decimals, without trailing zeros: 12, 1.5, 0.333.
std::string Num(double v);

// 90s -> "1m 30s", 3h -> "3h", 26h -> "1d 2h".
std::string Duration(double seconds);

// The UTC day of `t` (seconds since the Unix epoch), in days since 1970-01-01.
int64_t DayOf(double t);

// The civil date (YYYY-MM-DD, UTC) `days` days after 1970-01-01.
std::string DayName(int64_t days);

// `t` as YYYY-MM-DDTHH:MM:SSZ (whole seconds, UTC).
std::string TimeName(double t);

// The opening of an SVG file (XML declaration, <svg> of that size with the
// charts' font, a <title>, a white background).
std::string SvgOpen(int width, int height, const std::string& title);

// <text> at (x, y), with extra attributes.
std::string Text(double x, double y, std::string_view text, std::string_view attrs = "");

// A <rect> of class `cls` with a tooltip (<title>); a negative width is 0.
std::string Rect(double x, double y, double w, double h, std::string_view fill, std::string_view cls,
                 std::string_view tip);

// A legend's entry at (x, y): a swatch of `fill` (or a vertical line,
// dashed or not) and its label.
std::string LegendItem(double x, double y, std::string_view fill, std::string_view label, bool line = false,
                       bool dashed = false);

// Words of `text` in lines of at most `width` characters.
std::vector<std::string> Wrap(const std::string& text, size_t width);

// An SVG file's text for inlining in HTML: without its XML declaration.
std::string Inline(const std::string& svg);

}  // namespace charter::cli::svg

#endif  // CHARTER_CLI_SVG_H_
