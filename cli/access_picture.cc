// `charter access --format svg`: the access path through one connection as
// a picture Charter draws itself (no Graphviz): principals on the left, the
// groups they come through in the middle, what the connection reaches on the
// right, each node in the column of its longest path from a principal; a
// dashed line for each membership, an arrow labelled with the actions for
// each grant; what a finding names in red; a legend, and the findings below.
#include "access_picture.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "svg.h"
#include "util.h"

namespace charter::cli {
namespace {

using svg::Esc;
using svg::LegendItem;
using svg::Num;
using svg::SvgOpen;
using svg::Text;

constexpr char kRed[] = "#c53030";
constexpr char kInk[] = "#1a202c";
constexpr char kGrey[] = "#718096";
constexpr double kCharWidth = 7.2;  // of the 12-pixel font, for widths
constexpr double kNodeHeight = 30, kRowGap = 26, kColumnGap = 240, kMargin = 24;

enum class Kind { kPrincipal, kGroup, kResource };

struct Node {
  std::string name;  // Type::"id", the type without its namespace
  Kind kind = Kind::kResource;
  bool flagged = false;
  int column = 0;
  double x = 0, y = 0, width = 0;
};

std::string ShortName(const EntityUid& u) {
  const size_t at = u.type.rfind("::");
  return Cat(at == std::string::npos ? u.type : u.type.substr(at + 2), "::\"", u.id, "\"");
}

std::string Joined(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += Cat(out.empty() ? "" : ", ", s);
  return out;
}

std::string Shape(const Node& n) {
  const std::string stroke = n.flagged ? kRed : kInk;
  const double x = n.x, y = n.y, w = n.width, h = kNodeHeight;
  std::string fill = n.kind == Kind::kPrincipal ? "#ebf8ff" : n.kind == Kind::kGroup ? "#faf5ff" : "#f7fafc";
  std::string shape;
  switch (n.kind) {
    case Kind::kPrincipal:
      shape = Cat("<ellipse cx=\"", Num(x + w / 2), "\" cy=\"", Num(y + h / 2), "\" rx=\"", Num(w / 2), "\" ry=\"",
                  Num(h / 2), "\"");
      break;
    case Kind::kGroup:
      shape = Cat("<polygon points=\"", Num(x), ",", Num(y + h / 2), " ", Num(x + 10), ",", Num(y), " ",
                  Num(x + w - 10), ",", Num(y), " ", Num(x + w), ",", Num(y + h / 2), " ", Num(x + w - 10), ",",
                  Num(y + h), " ", Num(x + 10), ",", Num(y + h), "\"");
      break;
    case Kind::kResource:
      shape = Cat("<rect x=\"", Num(x), "\" y=\"", Num(y), "\" width=\"", Num(w), "\" height=\"", Num(h), "\" rx=\"3\"");
      break;
  }
  return Cat(shape, " fill=\"", fill, "\" stroke=\"", stroke, "\" stroke-width=\"", n.flagged ? "2" : "1", "\"/>");
}

}  // namespace

std::string AccessSvg(const AccessReport& report) {
  std::set<std::string> flagged;
  for (const AccessFinding& f : report.findings) {
    if (f.principal) flagged.insert(ShortName(*f.principal));
  }
  // The graph: nodes by name; memberships; grants with their actions.
  std::map<std::string, Node> nodes;
  auto node = [&](const EntityUid& u, Kind kind) -> Node& {
    Node& n = nodes[ShortName(u)];
    if (n.name.empty()) {
      n.name = ShortName(u);
      n.kind = kind;
      n.flagged = flagged.count(n.name) > 0;
    } else if (kind == Kind::kGroup && n.kind == Kind::kResource) {
      n.kind = Kind::kGroup;  // a group and also reached: drawn as a group
    }
    return n;
  };
  std::set<std::pair<std::string, std::string>> members;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> grants;
  for (const AccessRow& r : report.rows) {
    const std::string res = node(r.resource, Kind::kResource).name;
    for (const AccessGrant& g : r.allowed) {
      std::string from = node(g.principal, Kind::kPrincipal).name;
      for (size_t i = 1; i < g.path.size(); ++i) {
        const std::string b = node(g.path[i], Kind::kGroup).name;
        members.insert({from, b});
        from = b;
      }
      grants[{from, res}].insert(r.action.id);
    }
  }
  // Columns: the longest path from a principal (relaxed at most once a node,
  // so that a cycle cannot loop).
  std::vector<std::pair<std::string, std::string>> edges(members.begin(), members.end());
  for (const auto& [edge, actions] : grants) edges.push_back(edge);
  for (size_t round = 0; round < nodes.size(); ++round) {
    bool changed = false;
    for (const auto& [a, b] : edges) {
      if (a == b) continue;
      if (nodes[b].column < nodes[a].column + 1) {
        nodes[b].column = nodes[a].column + 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  int columns = 0;
  for (const auto& [name, n] : nodes) columns = std::max(columns, n.column + 1);
  // What the connection reaches, and is no group, stands in the last column
  // (with what nobody is allowed on).
  for (auto& [name, n] : nodes) {
    if (n.kind == Kind::kResource) n.column = std::max(columns - 1, 1);
  }
  columns = std::max(columns, nodes.empty() ? 0 : 2);
  // Rows: each column ordered by where its predecessors stand (one sweep
  // from the left), then by name.
  std::vector<std::vector<Node*>> by_column(static_cast<size_t>(columns));
  for (auto& [name, n] : nodes) by_column[static_cast<size_t>(n.column)].push_back(&n);
  std::vector<double> column_width(static_cast<size_t>(columns), 0);
  for (int c = 0; c < columns; ++c) {
    std::vector<Node*>& col = by_column[static_cast<size_t>(c)];
    std::map<const Node*, double> center;
    for (Node* n : col) {
      double sum = 0;
      int count = 0;
      for (const auto& [a, b] : edges) {
        if (b == n->name && nodes[a].column < c) {
          sum += nodes[a].y;
          ++count;
        }
      }
      // Nothing leads to it (what nobody is allowed on): below the rest.
      center[n] = count ? sum / count : 1e9;
    }
    std::stable_sort(col.begin(), col.end(), [&](const Node* a, const Node* b) {
      return center[a] != center[b] ? center[a] < center[b] : a->name < b->name;
    });
    double width = 0;
    for (Node* n : col) width = std::max(width, static_cast<double>(n->name.size()) * kCharWidth + 28);
    column_width[static_cast<size_t>(c)] = width;
    for (size_t i = 0; i < col.size(); ++i) {
      col[i]->width = width;
      col[i]->y = 84 + static_cast<double>(i) * (kNodeHeight + kRowGap);
    }
  }
  double x = kMargin, bottom = 84;
  for (int c = 0; c < columns; ++c) {
    for (Node* n : by_column[static_cast<size_t>(c)]) {
      n->x = x;
      bottom = std::max(bottom, n->y + kNodeHeight);
    }
    x += column_width[static_cast<size_t>(c)] + kColumnGap;
  }
  const double right = std::max(x - kColumnGap + kMargin, 760.0);

  std::string body;
  // An edge is a cubic curve, level at both ends.
  struct Curve {
    double x1, y1, x2, y2, bend;
    std::string Path() const {
      return Cat("M", Num(x1), ",", Num(y1), " C", Num(x1 + bend), ",", Num(y1), " ", Num(x2 - bend), ",", Num(y2),
                 " ", Num(x2), ",", Num(y2));
    }
    std::pair<double, double> At(double t) const {
      const double u = 1 - t, a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
      return {a * x1 + b * (x1 + bend) + c * (x2 - bend) + d * x2, a * y1 + b * y1 + c * y2 + d * y2};
    }
  };
  auto curve_of = [&](const Node& a, const Node& b) {
    const double x1 = a.x + a.width, x2 = b.x - 2;
    return Curve{x1, a.y + kNodeHeight / 2, x2, b.y + kNodeHeight / 2, std::max(40.0, (x2 - x1) / 2)};
  };
  auto curve = [&](const Node& a, const Node& b) { return curve_of(a, b).Path(); };
  // The labels placed so far (boxes), so that the next one finds room.
  std::vector<std::array<double, 4>> placed;
  for (const auto& [name, n] : nodes) placed.push_back({n.x, n.y, n.x + n.width, n.y + kNodeHeight});
  auto free_at = [&](double cx, double cy, double w) {
    for (const auto& p : placed) {
      if (cx - w / 2 < p[2] && p[0] < cx + w / 2 && cy - 11 < p[3] && p[1] < cy + 3) return false;
    }
    return true;
  };
  for (const auto& [a, b] : members) {
    body += Cat("<path class=\"member\" data-from=\"", Esc(a), "\" data-to=\"", Esc(b), "\" d=\"",
                curve(nodes[a], nodes[b]), "\" fill=\"none\" stroke=\"", kGrey,
                "\" stroke-dasharray=\"5,4\"><title>", Esc(Cat(a, " in ", b)), "</title></path>\n");
  }
  for (const auto& [edge, actions] : grants) {
    const Node& a = nodes[edge.first];
    const Node& b = nodes[edge.second];
    const bool red = a.flagged;
    const std::string label = Joined(actions);
    body += Cat("<g class=\"grant\" data-from=\"", Esc(edge.first), "\" data-to=\"", Esc(edge.second),
                "\" data-actions=\"", Esc(label), "\">\n<path d=\"", curve(a, b), "\" fill=\"none\" stroke=\"",
                red ? kRed : kInk, "\" marker-end=\"url(#", red ? "arrow-red" : "arrow", ")\"><title>",
                Esc(Cat(edge.first, " may ", label, " on ", edge.second)), "</title></path>\n");
    // The label on the curve, over a white halo: at its middle, else the
    // nearest place along it that no other label takes.
    const Curve c = curve_of(a, b);
    const double w = static_cast<double>(label.size()) * 6.4;
    double mx = 0, my = 0;
    for (double t : {0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.5}) {
      std::tie(mx, my) = c.At(t);
      my -= 4;
      if (free_at(mx, my, w)) break;
    }
    placed.push_back({mx - w / 2, my - 11, mx + w / 2, my + 3});
    body += Text(mx, my, label,
                 Cat("text-anchor=\"middle\" font-size=\"11\" fill=\"", red ? kRed : "#2d3748",
                     "\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\""));
    body += "</g>\n";
  }
  for (const auto& [name, n] : nodes) {
    const char* cls = n.kind == Kind::kPrincipal ? "principal" : n.kind == Kind::kGroup ? "group" : "resource";
    body += Cat("<g class=\"node ", cls, n.flagged ? " flagged" : "", "\" data-name=\"", Esc(name), "\">", Shape(n),
                Text(n.x + n.width / 2, n.y + kNodeHeight / 2 + 4, name,
                     Cat("text-anchor=\"middle\" fill=\"", n.flagged ? kRed : kInk, "\"")),
                "</g>\n");
  }
  if (nodes.empty()) {
    body += Text(kMargin, 100, "nobody is allowed anything through this connection", "fill=\"#4a5568\"");
    bottom = 110;
  }
  // The findings, below the graph.
  double y = bottom + 40;
  body += Text(kMargin, y, Cat("Findings: ", report.findings.size()), "font-size=\"15\" font-weight=\"bold\"");
  y += 22;
  for (const AccessFinding& f : report.findings) {
    body += Cat("<g class=\"finding\" data-kind=\"", Esc(f.kind), "\" data-severity=\"", Esc(f.severity), "\">",
                Text(kMargin, y, Cat(f.severity, "  ", f.kind), Cat("font-weight=\"bold\" fill=\"",
                                                                    f.severity == "low" ? "#4a5568" : kRed, "\"")),
                Text(kMargin + 260, y, f.message), "</g>\n");
    y += 18;
  }

  std::string out = SvgOpen(static_cast<int>(std::max(right, 900.0)), static_cast<int>(y + 12),
                            Cat("Access through ", ShortName(report.connection), " at ", report.at));
  out += Cat("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" "
             "markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"",
             kInk, "\"/></marker><marker id=\"arrow-red\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
             "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"",
             kRed, "\"/></marker></defs>\n");
  out += "<g class=\"legend\">\n";
  out += Text(kMargin, 24, Cat("Access through ", ShortName(report.connection), " at ", report.at),
              "font-size=\"15\" font-weight=\"bold\"");
  // The legend: the three shapes, the two lines, red.
  out += Cat("<ellipse cx=\"", Num(kMargin + 14), "\" cy=\"46\" rx=\"14\" ry=\"8\" fill=\"#ebf8ff\" stroke=\"", kInk,
             "\"/>", Text(kMargin + 34, 50, "principal"));
  out += Cat("<polygon points=\"", Num(kMargin + 110), ",46 ", Num(kMargin + 116), ",38 ", Num(kMargin + 132), ",38 ",
             Num(kMargin + 138), ",46 ", Num(kMargin + 132), ",54 ", Num(kMargin + 116), ",54\" fill=\"#faf5ff\" "
             "stroke=\"", kInk, "\"/>", Text(kMargin + 146, 50, "group it is in"));
  out += Cat("<rect x=\"", Num(kMargin + 262), "\" y=\"38\" width=\"28\" height=\"16\" rx=\"3\" fill=\"#f7fafc\" "
             "stroke=\"", kInk, "\"/>", Text(kMargin + 298, 50, "what the connection reaches"));
  out += Cat("<line x1=\"", Num(kMargin + 490), "\" y1=\"46\" x2=\"", Num(kMargin + 520), "\" y2=\"46\" stroke=\"", kGrey,
             "\" stroke-dasharray=\"5,4\"/>", Text(kMargin + 528, 50, "member of"));
  out += Cat("<line x1=\"", Num(kMargin + 610), "\" y1=\"46\" x2=\"", Num(kMargin + 640), "\" y2=\"46\" stroke=\"", kInk,
             "\" marker-end=\"url(#arrow)\"/>", Text(kMargin + 648, 50, "allowed, with the actions"));
  out += LegendItem(kMargin, 72, kRed, "named by a finding");
  out += "</g>\n";
  return out + body + "</svg>\n";
}

}  // namespace charter::cli
