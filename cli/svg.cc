#include "svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util.h"

namespace charter::cli::svg {
namespace {

constexpr char kFont[] = "font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"12\"";

}  // namespace

std::string Esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters have no place in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string Duration(double seconds) {
  int64_t s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return Cat(s, "s");
  const int64_t d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60, r = s % 60;
  std::string out;
  if (d) out += Cat(d, "d");
  if (h) out += Cat(out.empty() ? "" : " ", h, "h");
  if (m && !d) out += Cat(out.empty() ? "" : " ", m, "m");
  if (r && !d && !h) out += Cat(" ", r, "s");
  return out;
}

int64_t DayOf(double t) { return static_cast<int64_t>(std::floor(t / kDay)); }

// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
std::string DayName(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld", static_cast<long long>(y), static_cast<long long>(m),
                static_cast<long long>(d));
  return buf;
}

std::string TimeName(double t) {
  const int64_t s = static_cast<int64_t>(std::floor(t));
  const int64_t r = ((s % 86400) + 86400) % 86400;
  char buf[160];
  std::snprintf(buf, sizeof buf, "T%02lld:%02lld:%02lldZ", static_cast<long long>(r / 3600),
                static_cast<long long>(r % 3600 / 60), static_cast<long long>(r % 60));
  return DayName(DayOf(t)) + buf;
}

std::string SvgOpen(int width, int height, const std::string& title) {
  return Cat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", width,
             "\" height=\"", height, "\" viewBox=\"0 0 ", width, " ", height, "\" ", kFont, " role=\"img\">\n<title>",
             Esc(title), "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
}

std::string Text(double x, double y, std::string_view text, std::string_view attrs) {
  return Cat("<text x=\"", Num(x), "\" y=\"", Num(y), "\"", attrs.empty() ? "" : " ", attrs, ">", Esc(text),
             "</text>\n");
}

std::string Rect(double x, double y, double w, double h, std::string_view fill, std::string_view cls,
                 std::string_view tip) {
  return Cat("<rect class=\"", cls, "\" x=\"", Num(x), "\" y=\"", Num(y), "\" width=\"", Num(std::max(0.0, w)),
             "\" height=\"", Num(h), "\" fill=\"", fill, "\"><title>", Esc(tip), "</title></rect>\n");
}

std::string LegendItem(double x, double y, std::string_view fill, std::string_view label, bool line,
                       bool dashed) {
  std::string out = Cat("<g class=\"legend-item\">");
  if (line) {
    out += Cat("<line x1=\"", Num(x + 6), "\" y1=\"", Num(y - 10), "\" x2=\"", Num(x + 6), "\" y2=\"", Num(y + 2),
               "\" stroke=\"#1a202c\" stroke-width=\"2\"", dashed ? " stroke-dasharray=\"3,2\"" : "", "/>");
  } else {
    out += Cat("<rect x=\"", Num(x), "\" y=\"", Num(y - 10), "\" width=\"12\" height=\"12\" fill=\"", fill, "\"/>");
  }
  return out + Text(x + 18, y, label) + "</g>\n";
}

std::vector<std::string> Wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    i = j + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string Inline(const std::string& svg) {
  size_t at = svg.find("<svg");
  return at == std::string::npos ? svg : svg.substr(at);
}

}  // namespace charter::cli::svg
