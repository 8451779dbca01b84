// AccessReport's text, JSON and Graphviz forms (charter/governance.h), and the
// small parsers the reviews share with the command line.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "charter/governance.h"
#include "common/strings.h"
#include "governance/model.h"
#include "governance/render.h"

namespace charter {

using internal::review::JsonEntities;
using internal::review::JsonEntity;
using internal::review::JsonKey;
using internal::review::JsonString;
using internal::review::JsonStrings;
using internal::review::ShortEntity;

absl::StatusOr<int64_t> ParseReviewDate(std::string_view text) { return internal::review::ParseDate(text); }

absl::StatusOr<EntityUid> ParseConnectionUid(std::string_view text, std::string_view connection_type) {
  if (text.empty()) return absl::InvalidArgumentError("the connection is empty: give its uid or its id");
  size_t quote = text.find('"');
  if (quote == std::string_view::npos) return EntityUid{std::string(connection_type), std::string(text)};
  // `Type::"id"`: the type, then a quoted id with \" and \\ escapes.
  if (quote < 2 || text.substr(quote - 2, 2) != "::" || text.back() != '"' || text.size() < quote + 2) {
    return absl::InvalidArgumentError(
        internal::Cat("`", text, "` is not a connection uid: write Type::\"id\" or only the id"));
  }
  EntityUid uid{std::string(text.substr(0, quote - 2)), ""};
  std::string_view body = text.substr(quote + 1, text.size() - quote - 2);
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '\\' && i + 1 < body.size()) {
      uid.id.push_back(body[++i]);
    } else if (c == '"') {
      return absl::InvalidArgumentError(internal::Cat("`", text, "` is not a connection uid: a quote inside the id"));
    } else {
      uid.id.push_back(c);
    }
  }
  if (uid.type != connection_type) {
    return absl::InvalidArgumentError(internal::Cat("`", text, "` is not a connection: its type is ", uid.type,
                                                    ", not ", connection_type));
  }
  return uid;
}

namespace {

std::string Joined(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const std::string& s : items) internal::CatAppend(&out, out.empty() ? "" : sep, s);
  return out;
}

std::string PathText(const std::vector<EntityUid>& path) {
  std::string out;
  for (const EntityUid& u : path) internal::CatAppend(&out, out.empty() ? "" : " in ", ShortEntity(u));
  return out;
}

}  // namespace

std::string AccessReport::ToText() const {
  using internal::Cat;
  using internal::CatAppend;
  std::string out = Cat("access through ", ShortEntity(connection), " at ", at, "\n");
  CatAppend(&out, "  project:    ", project ? ShortEntity(*project) : "(not in the store)", "\n");
  CatAppend(&out, "  cluster:    ", cluster ? ShortEntity(*cluster) : "(not in the store)", "\n");
  std::vector<std::string> ns;
  for (const EntityUid& u : namespaces) ns.push_back(u.id);
  CatAppend(&out, "  namespaces: ", ns.empty() ? "none" : Joined(ns), "\n");
  std::string layer;
  for (const AccessRow& r : rows) {
    if (r.layer != layer) {
      layer = r.layer;
      CatAppend(&out, "\n", layer, "\n");
    }
    CatAppend(&out, "  ", r.action.id, " on ", ShortEntity(r.resource));
    if (r.context != "{}") CatAppend(&out, " with ", r.context);
    out += "\n";
    if (r.allowed.empty()) out += "    nobody\n";
    for (const AccessGrant& g : r.allowed) {
      CatAppend(&out, "    ", ShortEntity(g.principal), "  by ", Joined(g.reasons));
      if (g.path.size() > 1) CatAppend(&out, "  via ", PathText(g.path));
      out += "\n";
    }
    for (const AccessRefusal& f : r.refused) {
      CatAppend(&out, "    refused ", ShortEntity(f.principal), "  permitted by ", Joined(f.permits), ", forbidden by ",
                Joined(f.forbids), "\n");
    }
    if (!r.erring.empty()) CatAppend(&out, "    erring: ", Joined(r.erring), "\n");
  }
  out += "\nfindings\n";
  if (findings.empty()) out += "  none\n";
  for (const AccessFinding& f : findings) CatAppend(&out, "  ", f.severity, "  ", f.kind, ": ", f.message, "\n");
  for (const std::string& s : skipped) CatAppend(&out, "  not reviewed: ", s, "\n");
  CatAppend(&out, "\n", decided, " of ", combinations, " requests decided\n");
  return out;
}

std::string AccessReport::ToJson() const {
  std::string out = "{";
  JsonKey(&out, "connection", true);
  JsonEntity(&out, connection);
  JsonKey(&out, "project");
  if (project) {
    JsonEntity(&out, *project);
  } else {
    out += "null";
  }
  JsonKey(&out, "cluster");
  if (cluster) {
    JsonEntity(&out, *cluster);
  } else {
    out += "null";
  }
  JsonKey(&out, "namespaces");
  JsonEntities(&out, namespaces);
  JsonKey(&out, "at");
  JsonString(&out, at);
  JsonKey(&out, "rows");
  out += "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const AccessRow& r = rows[i];
    if (i > 0) out += ",";
    out += "\n{";
    JsonKey(&out, "layer", true);
    JsonString(&out, r.layer);
    JsonKey(&out, "action");
    JsonEntity(&out, r.action);
    JsonKey(&out, "resource");
    JsonEntity(&out, r.resource);
    JsonKey(&out, "context");
    out += r.context_json.empty() ? "{}" : r.context_json;
    JsonKey(&out, "allowed");
    out += "[";
    for (size_t j = 0; j < r.allowed.size(); ++j) {
      if (j > 0) out += ",";
      out += "{";
      JsonKey(&out, "principal", true);
      JsonEntity(&out, r.allowed[j].principal);
      JsonKey(&out, "reasons");
      JsonStrings(&out, r.allowed[j].reasons);
      JsonKey(&out, "path");
      JsonEntities(&out, r.allowed[j].path);
      out += "}";
    }
    out += "]";
    JsonKey(&out, "refused");
    out += "[";
    for (size_t j = 0; j < r.refused.size(); ++j) {
      if (j > 0) out += ",";
      out += "{";
      JsonKey(&out, "principal", true);
      JsonEntity(&out, r.refused[j].principal);
      JsonKey(&out, "permits");
      JsonStrings(&out, r.refused[j].permits);
      JsonKey(&out, "forbids");
      JsonStrings(&out, r.refused[j].forbids);
      out += "}";
    }
    out += "]";
    JsonKey(&out, "erring");
    JsonStrings(&out, r.erring);
    out += "}";
  }
  out += "]";
  JsonKey(&out, "findings");
  out += "[";
  for (size_t i = 0; i < findings.size(); ++i) {
    const AccessFinding& f = findings[i];
    if (i > 0) out += ",";
    out += "\n{";
    JsonKey(&out, "kind", true);
    JsonString(&out, f.kind);
    JsonKey(&out, "severity");
    JsonString(&out, f.severity);
    JsonKey(&out, "message");
    JsonString(&out, f.message);
    if (f.principal) {
      JsonKey(&out, "principal");
      JsonEntity(&out, *f.principal);
    }
    JsonKey(&out, "action");
    JsonEntity(&out, f.action);
    out += "}";
  }
  out += "]";
  JsonKey(&out, "skipped");
  JsonStrings(&out, skipped);
  JsonKey(&out, "combinations");
  out += std::to_string(combinations);
  JsonKey(&out, "decided");
  out += std::to_string(decided);
  out += "}\n";
  return out;
}

std::string AccessReport::ToDot() const {
  using internal::Cat;
  using internal::CatAppend;
  // Graphviz ids and labels are quoted strings; only " and \ need escaping.
  auto quote = [](std::string_view s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') q.push_back('\\');
      q.push_back(c);
    }
    q.push_back('"');
    return q;
  };
  auto id = [&](const EntityUid& u) { return quote(ShortEntity(u)); };
  std::set<std::string> flagged;  // principals a finding names
  for (const AccessFinding& f : findings) {
    if (f.principal) flagged.insert(ShortEntity(*f.principal));
  }
  // Nodes: principals, groups on paths, resources; edges: membership steps
  // and grants (principal or the group a permit names -> resource, labelled
  // with the actions).
  std::map<std::string, std::string> nodes;  // id -> attributes
  std::set<std::pair<std::string, std::string>> member_edges;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> grants;
  auto node = [&](const EntityUid& u, std::string_view shape) {
    std::string n = id(u);
    std::string attrs = Cat("shape=", shape);
    if (flagged.count(ShortEntity(u))) attrs += ", color=red, fontcolor=red";
    nodes.try_emplace(n, attrs);
    return n;
  };
  if (project) node(*project, "box");
  if (cluster) node(*cluster, "box");
  node(connection, "box");
  for (const AccessRow& r : rows) {
    std::string res = node(r.resource, "box");
    for (const AccessGrant& g : r.allowed) {
      std::string from = node(g.principal, "ellipse");
      for (size_t i = 1; i < g.path.size(); ++i) {
        std::string a = node(g.path[i - 1], i == 1 ? "ellipse" : "hexagon");
        std::string b = node(g.path[i], "hexagon");
        member_edges.insert({a, b});
        from = b;
      }
      grants[{from, res}].insert(r.action.id);
    }
  }
  std::string out = Cat("digraph access {\n  rankdir=LR;\n  label=", quote(Cat("access through ", ShortEntity(connection),
                                                                               " at ", at)),
                        ";\n  node [fontname=\"Helvetica\"];\n");
  for (const auto& [n, attrs] : nodes) CatAppend(&out, "  ", n, " [", attrs, "];\n");
  for (const auto& [a, b] : member_edges) CatAppend(&out, "  ", a, " -> ", b, " [style=dashed, label=\"in\"];\n");
  for (const auto& [edge, actions] : grants) {
    std::vector<std::string> list(actions.begin(), actions.end());
    bool red = flagged.count(edge.first.substr(1, edge.first.size() - 2)) > 0;
    CatAppend(&out, "  ", edge.first, " -> ", edge.second, " [label=", quote(Joined(list)),
              red ? ", color=red" : "", "];\n");
  }
  out += "}\n";
  return out;
}

}  // namespace charter
