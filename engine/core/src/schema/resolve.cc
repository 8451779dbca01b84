// SchemaAst -> SchemaModel: name resolution, common-type inlining, the
// entity and action hierarchies, and the checks that need the whole schema.
#include <algorithm>
#include <functional>
#include <iterator>
#include <memory>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "charter/schema.h"
#include "common/strings.h"
#include "common/diagnostic_codes.h"
#include "schema/schema_model.h"

namespace charter::internal {

using schema::ActionDecl;
using schema::CommonTypeDecl;
using schema::EntityDecl;
using schema::Namespace;
using schema::SchemaAst;
using schema::TypeExpr;

TypeRef SchemaType::Of(Kind k) {
  auto t = std::make_shared<SchemaType>();
  t->kind = k;
  return t;
}
TypeRef SchemaType::Entity(std::string name) {
  auto t = std::make_shared<SchemaType>();
  t->kind = Kind::kEntity;
  t->name = std::move(name);
  return t;
}
TypeRef SchemaType::Extension(std::string name) {
  auto t = std::make_shared<SchemaType>();
  t->kind = Kind::kExtension;
  t->name = std::move(name);
  return t;
}
TypeRef SchemaType::SetOf(TypeRef elem) {
  auto t = std::make_shared<SchemaType>();
  t->kind = Kind::kSet;
  t->elem = std::move(elem);
  return t;
}
TypeRef SchemaType::Record(std::map<std::string, AttrType> attrs, bool open) {
  auto t = std::make_shared<SchemaType>();
  t->kind = Kind::kRecord;
  t->attrs = std::move(attrs);
  t->open = open;
  return t;
}

bool TypeEquals(const SchemaType& a, const SchemaType& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case SchemaType::Kind::kEntity:
    case SchemaType::Kind::kExtension: return a.name == b.name;
    case SchemaType::Kind::kSet:
      if (a.elem == nullptr || b.elem == nullptr) return a.elem == b.elem;
      return TypeEquals(*a.elem, *b.elem);
    case SchemaType::Kind::kRecord: {
      if (a.open != b.open || a.attrs.size() != b.attrs.size()) return false;
      auto i = a.attrs.begin();
      auto j = b.attrs.begin();
      for (; i != a.attrs.end(); ++i, ++j) {
        if (i->first != j->first || i->second.required != j->second.required ||
            !TypeEquals(*i->second.type, *j->second.type)) {
          return false;
        }
      }
      return true;
    }
    default: return true;
  }
}

std::string TypeName(const SchemaType& t) {
  switch (t.kind) {
    case SchemaType::Kind::kNever: return "__cedar::internal::Never";
    case SchemaType::Kind::kBool: return "Bool";
    case SchemaType::Kind::kTrue: return "__cedar::internal::True";
    case SchemaType::Kind::kFalse: return "__cedar::internal::False";
    case SchemaType::Kind::kLong: return "Long";
    case SchemaType::Kind::kString: return "String";
    case SchemaType::Kind::kEntity: return t.name;
    case SchemaType::Kind::kAnyEntity: return "__cedar::internal::AnyEntity";
    case SchemaType::Kind::kExtension: return t.name;
    case SchemaType::Kind::kSet:
      return t.elem == nullptr ? "Set<__cedar::internal::Any>" : Cat("Set<", TypeName(*t.elem), ">");
    case SchemaType::Kind::kRecord: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, a] : t.attrs) {
        CatAppend(&out, first ? "" : ", ", k, a.required ? "" : "?", ": ", TypeName(*a.type));
        first = false;
      }
      return out + "}";
    }
  }
  return "?";
}

bool IsActionType(std::string_view type) {
  return type == "Action" ||
         (type.size() > 8 && type.substr(type.size() - 8) == "::Action");
}

namespace {

// The closure of a graph of keys.size() nodes whose edges go from a node to
// its parents (`up`): for each node, the nodes below it (that reach it), as
// interval labels (see Hierarchy). Cycles are allowed: the members of one
// strongly connected component share their intervals and are below each
// other. Time and memory are linear in the nodes, the edges and the
// intervals; when the intervals (or the work of merging them) would exceed
// kMaxHierarchyIntervals, returns null and sets *over to the node reached.
template <typename Key>
std::shared_ptr<Hierarchy<Key>> BuildHierarchy(std::vector<Key> keys, const std::vector<std::vector<uint32_t>>& up,
                                               uint32_t* over) {
  auto h = std::make_shared<Hierarchy<Key>>();
  const uint32_t n = static_cast<uint32_t>(keys.size());
  h->keys = std::move(keys);
  // Children (the reverse edges) as CSR.
  std::vector<uint32_t> down_begin(n + 1, 0);
  for (uint32_t v = 0; v < n; ++v) {
    for (uint32_t p : up[v]) ++down_begin[p + 1];
  }
  for (uint32_t v = 0; v < n; ++v) down_begin[v + 1] += down_begin[v];
  std::vector<uint32_t> down(down_begin[n]);
  {
    std::vector<uint32_t> fill(down_begin.begin(), down_begin.end() - 1);
    for (uint32_t v = 0; v < n; ++v) {
      for (uint32_t p : up[v]) down[fill[p]++] = v;
    }
  }
  // Tarjan's components over the child edges, iteratively, from the nodes
  // without parents first: a component comes out after every one below it,
  // and its members take the next ranks (a depth-first post order).
  constexpr uint32_t kUnseen = 0xFFFFFFFF;
  std::vector<uint32_t> index(n, kUnseen), low(n, 0);
  std::vector<uint8_t> on_stack(n, 0);
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, uint32_t>> frames;  // node, next child
  h->rank.assign(n, 0);
  h->by_rank.reserve(n);
  h->group.assign(n, 0);
  h->cyclic.assign(n, 0);
  std::vector<uint32_t> group_first;  // group -> its first rank
  uint32_t counter = 0;
  auto visit = [&](uint32_t s) {
    if (index[s] != kUnseen) return;
    index[s] = low[s] = counter++;
    stack.push_back(s);
    on_stack[s] = 1;
    frames.push_back({s, down_begin[s]});
    while (!frames.empty()) {
      auto& [v, next] = frames.back();
      if (next < down_begin[v + 1]) {
        uint32_t w = down[next++];
        if (index[w] == kUnseen) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          frames.push_back({w, down_begin[w]});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      uint32_t done = v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
      if (low[done] != index[done]) continue;
      uint32_t g = static_cast<uint32_t>(group_first.size());
      group_first.push_back(static_cast<uint32_t>(h->by_rank.size()));
      uint32_t w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = 0;
        h->group[w] = g;
        h->rank[w] = static_cast<uint32_t>(h->by_rank.size());
        h->by_rank.push_back(w);
      } while (w != done);
    }
  };
  for (uint32_t v = 0; v < n; ++v) {
    if (up[v].empty()) visit(v);
  }
  for (uint32_t v = 0; v < n; ++v) visit(v);
  const uint32_t groups = static_cast<uint32_t>(group_first.size());
  group_first.push_back(n);
  for (uint32_t v = 0; v < n; ++v) {
    uint32_t g = h->group[v];
    bool self = std::find(up[v].begin(), up[v].end(), v) != up[v].end();
    h->cyclic[v] = self || group_first[g + 1] - group_first[g] > 1 ? 1 : 0;
  }
  // Each group's intervals: its own ranks, merged with those of the groups
  // of its members' children (which came out earlier).
  h->iv_begin.assign(groups + 1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> pending;
  size_t work = 0;
  for (uint32_t g = 0; g < groups; ++g) {
    pending.clear();
    pending.push_back({group_first[g], group_first[g + 1] - 1});
    size_t runs = 1;  // sorted runs in pending
    for (uint32_t r = group_first[g]; r < group_first[g + 1]; ++r) {
      uint32_t v = h->by_rank[r];
      for (uint32_t k = down_begin[v]; k < down_begin[v + 1]; ++k) {
        uint32_t c = h->group[down[k]];
        if (c == g) continue;
        work += h->iv_begin[c + 1] - h->iv_begin[c];
        if (work > 4 * kMaxHierarchyIntervals) {
          *over = v;
          return nullptr;
        }
        size_t mid = pending.size();
        pending.insert(pending.end(), h->intervals.begin() + h->iv_begin[c],
                       h->intervals.begin() + h->iv_begin[c + 1]);
        // A few runs (most members have a few children) are merged as
        // they come; many are sorted once.
        if (++runs <= 8) std::inplace_merge(pending.begin(), pending.begin() + mid, pending.end());
      }
    }
    if (runs > 8) std::sort(pending.begin(), pending.end());
    size_t at = h->intervals.size();
    for (const auto& iv : pending) {
      if (h->intervals.size() > at && iv.first <= h->intervals.back().second + 1) {
        h->intervals.back().second = std::max(h->intervals.back().second, iv.second);
      } else {
        h->intervals.push_back(iv);
      }
    }
    h->iv_begin[g + 1] = static_cast<uint32_t>(h->intervals.size());
    if (h->intervals.size() > kMaxHierarchyIntervals) {
      *over = h->by_rank[group_first[g]];
      return nullptr;
    }
  }
  h->intervals.shrink_to_fit();
  return h;
}

std::string Qualify(const std::string& ns, std::string_view name) {
  return ns.empty() ? std::string(name) : Cat(ns, "::", name);
}

bool IsExtension(std::string_view n) {
  return n == "ipaddr" || n == "decimal" || n == "datetime" || n == "duration";
}

bool IsReservedTypeName(std::string_view n) {
  return n == "Bool" || n == "Boolean" || n == "Entity" || n == "Extension" || n == "Long" ||
         n == "Record" || n == "Set" || n == "String";
}

class Resolver {
 public:
  Resolver(const SchemaAst& ast, const SchemaOptions& options, SchemaModel* model, Diagnostics* diags)
      : ast_(ast), options_(options), model_(model), diags_(diags) {}

  bool Run() {
    Collect();
    if (failed_) return false;
    for (const Namespace& ns : ast_.namespaces) {
      for (const CommonTypeDecl& d : ns.common_types) ResolveCommon(Qualify(ns.name, d.name));
    }
    for (const Namespace& ns : ast_.namespaces) {
      for (const EntityDecl& d : ns.entities) ResolveEntity(ns, d);
      for (const ActionDecl& d : ns.actions) ResolveAction(ns, d);
    }
    if (failed_) return false;
    CloseEntityHierarchy();
    CloseActionHierarchy();
    return !failed_;
  }

 private:
  void Error(const char* code, Span span, std::string message, std::string help = "") {
    failed_ = true;
    if (diags_ != nullptr) diags_->Error(code, span, std::move(message), std::move(help));
  }

  struct CommonEntry {
    const CommonTypeDecl* decl;
    std::string ns;
    TypeRef resolved;
    int depth = 0;  // of `resolved`: its set and record levels
    bool in_progress = false;
  };

  void Collect() {
    std::map<std::string, Span>& entity_spans = entity_spans_;
    for (const Namespace& ns : ast_.namespaces) {
      if (ns.name.rfind("__cedar", 0) == 0) {
        Error(codes::CH0408, ns.span, Cat("`", ns.name, "` is reserved and cannot be a namespace"));
      }
      for (const CommonTypeDecl& d : ns.common_types) {
        std::string name = Qualify(ns.name, d.name);
        if (IsReservedTypeName(d.name) || d.name.rfind("__cedar", 0) == 0) {
          Error(codes::CH0408, d.span, Cat("`", d.name, "` is reserved and cannot be a common type name"));
          continue;
        }
        if (commons_.count(name) != 0) {
          Error(codes::CH0403, d.span, Cat("common type `", name, "` is declared twice"));
          continue;
        }
        commons_[name] = CommonEntry{&d, ns.name, nullptr, 0, false};
      }
      for (const EntityDecl& d : ns.entities) {
        for (size_t i = 0; i < d.names.size(); ++i) {
          std::string name = Qualify(ns.name, d.names[i]);
          if (d.names[i].rfind("__cedar", 0) == 0) {
            Error(codes::CH0408, d.name_spans[i], Cat("`", d.names[i], "` is reserved and cannot be an entity type name"));
            continue;
          }
          if (!entity_spans.emplace(name, d.name_spans[i]).second) {
            Error(codes::CH0403, d.name_spans[i], Cat("entity type `", name, "` is declared twice"));
            continue;
          }
          EntityTypeInfo info;
          info.name = name;
          info.is_enum = d.is_enum;
          info.choices = d.choices;
          model_->entity_types[name] = std::move(info);
        }
        // Cedar accepts a choice listed twice and the empty choice `""`.
      }
      for (const ActionDecl& d : ns.actions) {
        for (size_t i = 0; i < d.names.size(); ++i) {
          ActionKey key{Qualify(ns.name, "Action"), d.names[i]};
          if (!action_spans_.emplace(key, d.name_spans[i]).second) {
            Error(codes::CH0403, d.name_spans[i], Cat("action `", key.type, "::", Quoted(key.id), "` is declared twice"));
            continue;
          }
          ActionInfo info;
          info.key = key;
          model_->actions[key] = std::move(info);
        }
      }
    }
  }

  static std::string Quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    return out + "\"";
  }

  // An entity type named `name` as written in namespace `ns`, or "".
  std::string FindEntity(const std::string& ns, const std::string& name) {
    std::string q = Qualify(ns, name);
    if (model_->entity_types.count(q) != 0) return q;
    if (model_->entity_types.count(name) != 0) return name;
    return "";
  }

  std::string ResolveEntityName(const std::string& ns, const std::string& name, Span span,
                                std::string_view role) {
    std::string found = FindEntity(ns, name);
    if (found.empty()) {
      Error(codes::CH0405, span, Cat("undeclared entity type `", name, "` in ", role));
    }
    return found;
  }

  // A resolved type and how many set and record levels it nests once its
  // common types are inlined (more than max_nesting: refused, reported once).
  struct Resolved {
    TypeRef type;
    int depth = 0;
  };

  // One step of the walk below: a type expression being resolved (`t`), or
  // a common type whose expression is being resolved (`common`).
  struct Frame {
    const TypeExpr* t = nullptr;
    const std::string* ns = nullptr;
    CommonEntry* common = nullptr;
    size_t next = 0;  // a set: 1 once its element is pushed; a record: the next attribute
    int depth = 0;    // a record: its deepest attribute so far
    std::map<std::string, AttrType> attrs;
  };

  TypeRef ResolveCommon(const std::string& qualified) {
    CommonEntry* pending = nullptr;
    Resolved r = Common(qualified, &pending);
    if (pending == nullptr) return r.type;
    Frame f;
    f.common = pending;
    return Walk(std::move(f));
  }

  TypeRef ResolveType(const std::string& ns, const TypeExpr& t) {
    Frame f;
    f.t = &t;
    f.ns = &ns;
    return Walk(std::move(f));
  }

  // A common type already resolved (or found on a cycle: CH0407, Never), or
  // in *pending the one to resolve first.
  Resolved Common(const std::string& qualified, CommonEntry** pending) {
    CommonEntry& e = commons_.at(qualified);
    if (e.resolved != nullptr) return {e.resolved, e.depth};
    if (e.in_progress) {
      Error(codes::CH0407, e.decl->span, Cat("common type `", qualified, "` refers to itself"));
      e.resolved = SchemaType::Of(SchemaType::Kind::kNever);
      return {e.resolved, 0};
    }
    *pending = &e;
    return {};
  }

  TypeRef Primitive(std::string_view n) {
    if (n == "Long") return SchemaType::Of(SchemaType::Kind::kLong);
    if (n == "String") return SchemaType::Of(SchemaType::Kind::kString);
    if (n == "Bool") return SchemaType::Of(SchemaType::Kind::kBool);
    if (IsExtension(n)) return SchemaType::Extension(std::string(n));
    return nullptr;
  }

  // Resolves the type of `first` with an explicit stack: a chain of common
  // types, each naming the next, is as long as the schema makes it, and
  // each link would be a native frame. The order of the work, and so of the
  // diagnostics, is that of a recursive descent.
  TypeRef Walk(Frame first) {
    std::vector<Frame> frames;
    std::vector<Resolved> results;
    frames.push_back(std::move(first));
    while (!frames.empty()) {
      Frame& f = frames.back();
      if (f.t == nullptr) {  // a common type's frame
        CommonEntry& e = *f.common;
        if (!e.in_progress) {
          e.in_progress = true;
          Frame body;
          body.t = &e.decl->type;
          body.ns = &e.ns;
          frames.push_back(std::move(body));
          continue;
        }
        Resolved r = results.back();
        results.pop_back();
        e.in_progress = false;
        if (e.resolved == nullptr) {
          e.resolved = r.type;
          e.depth = r.depth;
        }
        results.push_back({e.resolved, e.depth});
        frames.pop_back();
        continue;
      }
      const TypeExpr& t = *f.t;
      switch (t.kind) {
        case TypeExpr::Kind::kSet: {
          if (t.elem != nullptr && f.next == 0) {
            f.next = 1;
            Frame elem;
            elem.t = t.elem.get();
            elem.ns = f.ns;
            frames.push_back(std::move(elem));
            continue;
          }
          Resolved elem{SchemaType::Of(SchemaType::Kind::kNever), 0};
          if (t.elem != nullptr) {
            elem = results.back();
            results.pop_back();
          }
          results.push_back(Nest(SchemaType::SetOf(std::move(elem.type)), elem.depth, t.span));
          frames.pop_back();
          continue;
        }
        case TypeExpr::Kind::kRecord: {
          if (f.next > 0) {
            Resolved a = results.back();
            results.pop_back();
            f.depth = std::max(f.depth, a.depth);
            f.attrs[t.attrs[f.next - 1].name] = AttrType{std::move(a.type), t.attrs[f.next - 1].required};
          }
          while (f.next < t.attrs.size() && f.attrs.count(t.attrs[f.next].name) != 0) {
            const schema::AttrDecl& a = t.attrs[f.next++];
            Error(codes::CH0403, a.span, Cat("attribute `", a.name, "` is declared twice"));
          }
          if (f.next < t.attrs.size()) {
            Frame attr;
            attr.t = &t.attrs[f.next++].type;
            attr.ns = f.ns;
            frames.push_back(std::move(attr));
            continue;
          }
          results.push_back(Nest(SchemaType::Record(std::move(f.attrs), t.additional_attributes), f.depth, t.span));
          frames.pop_back();
          continue;
        }
        case TypeExpr::Kind::kName: {
          CommonEntry* pending = nullptr;
          Resolved r = ResolveName(*f.ns, t, &pending);
          frames.pop_back();
          if (pending != nullptr) {
            Frame common;
            common.common = pending;
            frames.push_back(std::move(common));
          } else {
            results.push_back(std::move(r));
          }
          continue;
        }
      }
    }
    return results.back().type;
  }

  // A set or record over a part `inner` levels deep: refused (once, where
  // the limit is passed) when it nests deeper than max_nesting.
  Resolved Nest(TypeRef t, int inner, Span span) {
    const int limit = options_.max_nesting;
    if (inner < limit) return {std::move(t), inner + 1};
    if (inner == limit) {
      Error(codes::CH0412, span,
            Cat("type nested deeper than ", limit, " levels once its common types are inlined"),
            "each common type used inside a set or record adds its own levels");
    }
    return {SchemaType::Of(SchemaType::Kind::kNever), limit + 1};
  }

  // A name: its type, or in *pending a common type to resolve first.
  Resolved ResolveName(const std::string& ns, const TypeExpr& t, CommonEntry** pending) {
    const std::string& n = t.name;
    switch (t.hint) {
      case TypeExpr::Hint::kPrimitive: return {Primitive(n)};
      case TypeExpr::Hint::kExtension:
        if (!IsExtension(n)) {
          Error(codes::CH0404, t.span, Cat("unknown extension type `", n, "`"),
                "the extension types are `ipaddr`, `decimal`, `datetime` and `duration`");
          return {SchemaType::Of(SchemaType::Kind::kNever)};
        }
        return {SchemaType::Extension(n)};
      case TypeExpr::Hint::kEntity: {
        std::string e = FindEntity(ns, n);
        if (e.empty()) {
          Error(codes::CH0404, t.span, Cat("undeclared entity type `", n, "`"));
          return {SchemaType::Of(SchemaType::Kind::kNever)};
        }
        return {SchemaType::Entity(e)};
      }
      case TypeExpr::Hint::kAny: break;
    }
    if (n.rfind("__cedar::", 0) == 0) {
      TypeRef p = Primitive(std::string_view(n).substr(9));
      if (p != nullptr) return {p};
      Error(codes::CH0404, t.span, Cat("unknown type `", n, "`"));
      return {SchemaType::Of(SchemaType::Kind::kNever)};
    }
    // Common type, then entity type, in this namespace and then in the empty
    // one; then the primitives and extension types.
    std::vector<std::string> candidates = {Qualify(ns, n)};
    if (!ns.empty() && n.find("::") == std::string::npos) candidates.push_back(n);
    for (const std::string& c : candidates) {
      if (commons_.count(c) != 0) return Common(c, pending);
      if (model_->entity_types.count(c) != 0) return {SchemaType::Entity(c)};
    }
    if (n.find("::") == std::string::npos) {
      TypeRef p = Primitive(n);
      if (p != nullptr) return {p};
    } else if (commons_.count(n) != 0) {
      return Common(n, pending);
    } else if (model_->entity_types.count(n) != 0) {
      return {SchemaType::Entity(n)};
    }
    Error(codes::CH0404, t.span, Cat("undeclared type `", n, "`"),
          "declare it as an entity type or with `type NAME = ...;`");
    return {SchemaType::Of(SchemaType::Kind::kNever)};
  }

  void ResolveEntity(const Namespace& ns, const EntityDecl& d) {
    std::vector<std::string> parents;
    for (size_t i = 0; i < d.parents.size(); ++i) {
      std::string p = ResolveEntityName(ns.name, d.parents[i], d.parent_spans[i], "`in`");
      if (!p.empty()) parents.push_back(p);
    }
    std::map<std::string, AttrType> attrs;
    bool open = false;
    if (d.shape.has_value()) {
      TypeRef shape = ResolveType(ns.name, *d.shape);
      if (shape->kind != SchemaType::Kind::kRecord) {
        if (shape->kind != SchemaType::Kind::kNever) {
          Error(codes::CH0409, d.shape->span, Cat("the shape of an entity type must be a record, not `",
                                             TypeName(*shape), "`"));
        }
      } else {
        attrs = shape->attrs;
        open = shape->open;
      }
    }
    TypeRef tags;
    if (d.tags.has_value()) tags = ResolveType(ns.name, *d.tags);
    for (const std::string& name : d.names) {
      auto it = model_->entity_types.find(Qualify(ns.name, name));
      if (it == model_->entity_types.end()) continue;
      it->second.parents = parents;
      it->second.attrs = attrs;
      it->second.open_attrs = open;
      it->second.tags = tags;
    }
  }

  void ResolveAction(const Namespace& ns, const ActionDecl& d) {
    std::vector<ActionKey> parents;
    std::string own = Qualify(ns.name, "Action");
    for (const schema::ActionRef& r : d.parents) {
      ActionKey key{r.type.empty() ? own : r.type, r.id};
      if (model_->actions.count(key) == 0 && !r.type.empty() && model_->actions.count({Qualify(ns.name, r.type), r.id}) != 0) {
        key.type = Qualify(ns.name, r.type);
      }
      if (model_->actions.count(key) == 0) {
        Error(codes::CH0406, r.span, Cat("undeclared action `", key.type, "::", Quoted(key.id), "` in `in`"));
        continue;
      }
      parents.push_back(key);
    }
    std::vector<std::string> principals, resources;
    for (size_t i = 0; i < d.principals.size(); ++i) {
      std::string p = ResolveEntityName(ns.name, d.principals[i], d.principal_spans[i], "`principal`");
      if (!p.empty() && std::find(principals.begin(), principals.end(), p) == principals.end()) {
        principals.push_back(p);
      }
    }
    for (size_t i = 0; i < d.resources.size(); ++i) {
      std::string p = ResolveEntityName(ns.name, d.resources[i], d.resource_spans[i], "`resource`");
      if (!p.empty() && std::find(resources.begin(), resources.end(), p) == resources.end()) {
        resources.push_back(p);
      }
    }
    TypeRef context = SchemaType::Record({});
    if (d.context.has_value()) {
      TypeRef c = ResolveType(ns.name, *d.context);
      if (c->kind != SchemaType::Kind::kRecord) {
        if (c->kind != SchemaType::Kind::kNever) {
          Error(codes::CH0409, d.context->span,
                Cat("the context of an action must be a record, not `", TypeName(*c), "`"));
        }
      } else {
        context = c;
      }
    }
    for (const std::string& name : d.names) {
      auto it = model_->actions.find({own, name});
      if (it == model_->actions.end()) continue;
      it->second.parents = parents;
      it->second.principals = principals;
      it->second.resources = resources;
      it->second.applies = d.has_applies_to && !principals.empty() && !resources.empty();
      it->second.context = context;
    }
  }

  void CloseEntityHierarchy() {
    // descendants(T) = every D from which T is reachable along parents.
    std::vector<std::string> keys;
    keys.reserve(model_->entity_types.size());
    for (const auto& [name, info] : model_->entity_types) keys.push_back(name);
    std::vector<std::vector<uint32_t>> up(keys.size());
    uint32_t i = 0;
    for (const auto& [name, info] : model_->entity_types) {
      for (const std::string& p : info.parents) {
        auto it = std::lower_bound(keys.begin(), keys.end(), p);
        if (it != keys.end() && *it == p) up[i].push_back(static_cast<uint32_t>(it - keys.begin()));
      }
      ++i;
    }
    uint32_t over = 0;
    auto h = BuildHierarchy(std::move(keys), up, &over);
    if (h == nullptr) {
      auto it = std::next(model_->entity_types.begin(), over);
      TooTangled("entity type", it->first, entity_spans_[it->first]);
      return;
    }
    i = 0;
    for (auto& [name, info] : model_->entity_types) info.descendants = ReachSet<std::string>(h, i++);
  }

  void CloseActionHierarchy() {
    std::vector<ActionKey> keys;
    keys.reserve(model_->actions.size());
    for (const auto& [key, info] : model_->actions) keys.push_back(key);
    std::vector<std::vector<uint32_t>> up(keys.size()), down(keys.size());
    uint32_t i = 0;
    for (const auto& [key, info] : model_->actions) {
      for (const ActionKey& p : info.parents) {
        auto it = std::lower_bound(keys.begin(), keys.end(), p);
        if (it == keys.end() || !(*it == p)) continue;
        uint32_t j = static_cast<uint32_t>(it - keys.begin());
        up[i].push_back(j);
        down[j].push_back(i);
      }
      ++i;
    }
    uint32_t over = 0;
    auto below = BuildHierarchy(keys, up, &over);
    if (below == nullptr) {
      TooTangled("action", Cat(keys[over].type, "::", Quoted(keys[over].id)), action_spans_[keys[over]]);
      return;
    }
    // The first action (in key order) on a cycle.
    for (uint32_t k = 0; k < keys.size(); ++k) {
      if (below->cyclic[k] == 0) continue;
      const ActionKey& key = keys[k];
      Error(codes::CH0407, action_spans_[key], Cat("action `", key.type, "::", Quoted(key.id), "` is in itself"),
            "the action hierarchy cannot have cycles");
      return;
    }
    auto above = BuildHierarchy(std::move(keys), down, &over);
    if (above == nullptr) {
      const ActionKey& key = below->keys[over];
      TooTangled("action", Cat(key.type, "::", Quoted(key.id)), action_spans_[key]);
      return;
    }
    i = 0;
    for (auto& [key, info] : model_->actions) {
      info.descendants = ReachSet<ActionKey>(below, i);
      info.ancestors = ReachSet<ActionKey>(above, i);
      ++i;
    }
  }

  void TooTangled(const char* what, const std::string& name, Span span) {
    Error(codes::CH0412, span,
          Cat("the ", what, " hierarchy is too tangled: its closure needs more than ", kMaxHierarchyIntervals,
              " intervals (reached at `", name, "`)"),
          "the closure of a hierarchy is kept as intervals of a depth-first order; a chain or a tree "
          "needs one a member, but many members each in several unrelated parents need many");
  }

  const SchemaAst& ast_;
  const SchemaOptions& options_;
  SchemaModel* model_;
  Diagnostics* diags_;
  std::map<std::string, CommonEntry> commons_;
  std::map<ActionKey, Span> action_spans_;  // where each action is declared
  std::map<std::string, Span> entity_spans_;  // where each entity type is declared
  bool failed_ = false;
};

}  // namespace

bool Resolve(const SchemaAst& ast, const SchemaOptions& options, SchemaModel* model, Diagnostics* diagnostics) {
  Resolver r(ast, options, model, diagnostics);
  return r.Run();
}

}  // namespace charter::internal
