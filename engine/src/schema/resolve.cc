// SchemaAst -> SchemaModel: name resolution, common-type inlining, the
// entity and action hierarchies, and the checks that need the whole schema.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

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
  Resolver(const SchemaAst& ast, SchemaModel* model, Diagnostics* diags)
      : ast_(ast), model_(model), diags_(diags) {}

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
    bool in_progress = false;
  };

  void Collect() {
    std::map<std::string, Span> entity_spans;
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
        commons_[name] = CommonEntry{&d, ns.name, nullptr, false};
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

  TypeRef ResolveCommon(const std::string& qualified) {
    CommonEntry& e = commons_.at(qualified);
    if (e.resolved != nullptr) return e.resolved;
    if (e.in_progress) {
      Error(codes::CH0407, e.decl->span, Cat("common type `", qualified, "` refers to itself"));
      e.resolved = SchemaType::Of(SchemaType::Kind::kNever);
      return e.resolved;
    }
    e.in_progress = true;
    TypeRef t = ResolveType(e.ns, e.decl->type, 0);
    e.in_progress = false;
    if (e.resolved == nullptr) e.resolved = t;
    return e.resolved;
  }

  TypeRef Primitive(std::string_view n) {
    if (n == "Long") return SchemaType::Of(SchemaType::Kind::kLong);
    if (n == "String") return SchemaType::Of(SchemaType::Kind::kString);
    if (n == "Bool") return SchemaType::Of(SchemaType::Kind::kBool);
    if (IsExtension(n)) return SchemaType::Extension(std::string(n));
    return nullptr;
  }

  TypeRef ResolveType(const std::string& ns, const TypeExpr& t, int depth) {
    switch (t.kind) {
      case TypeExpr::Kind::kSet:
        return SchemaType::SetOf(t.elem != nullptr ? ResolveType(ns, *t.elem, depth + 1)
                                             : SchemaType::Of(SchemaType::Kind::kNever));
      case TypeExpr::Kind::kRecord: {
        std::map<std::string, AttrType> attrs;
        for (const schema::AttrDecl& a : t.attrs) {
          if (attrs.count(a.name) != 0) {
            Error(codes::CH0403, a.span, Cat("attribute `", a.name, "` is declared twice"));
            continue;
          }
          attrs[a.name] = AttrType{ResolveType(ns, a.type, depth + 1), a.required};
        }
        return SchemaType::Record(std::move(attrs), t.additional_attributes);
      }
      case TypeExpr::Kind::kName: break;
    }
    const std::string& n = t.name;
    switch (t.hint) {
      case TypeExpr::Hint::kPrimitive: return Primitive(n);
      case TypeExpr::Hint::kExtension:
        if (!IsExtension(n)) {
          Error(codes::CH0404, t.span, Cat("unknown extension type `", n, "`"),
                "the extension types are `ipaddr`, `decimal`, `datetime` and `duration`");
          return SchemaType::Of(SchemaType::Kind::kNever);
        }
        return SchemaType::Extension(n);
      case TypeExpr::Hint::kEntity: {
        std::string e = FindEntity(ns, n);
        if (e.empty()) {
          Error(codes::CH0404, t.span, Cat("undeclared entity type `", n, "`"));
          return SchemaType::Of(SchemaType::Kind::kNever);
        }
        return SchemaType::Entity(e);
      }
      case TypeExpr::Hint::kAny: break;
    }
    if (n.rfind("__cedar::", 0) == 0) {
      TypeRef p = Primitive(std::string_view(n).substr(9));
      if (p != nullptr) return p;
      Error(codes::CH0404, t.span, Cat("unknown type `", n, "`"));
      return SchemaType::Of(SchemaType::Kind::kNever);
    }
    // Common type, then entity type, in this namespace and then in the empty
    // one; then the primitives and extension types.
    std::vector<std::string> candidates = {Qualify(ns, n)};
    if (!ns.empty() && n.find("::") == std::string::npos) candidates.push_back(n);
    for (const std::string& c : candidates) {
      if (commons_.count(c) != 0) return ResolveCommon(c);
      if (model_->entity_types.count(c) != 0) return SchemaType::Entity(c);
    }
    if (n.find("::") == std::string::npos) {
      TypeRef p = Primitive(n);
      if (p != nullptr) return p;
    } else if (commons_.count(n) != 0) {
      return ResolveCommon(n);
    } else if (model_->entity_types.count(n) != 0) {
      return SchemaType::Entity(n);
    }
    Error(codes::CH0404, t.span, Cat("undeclared type `", n, "`"),
          "declare it as an entity type or with `type NAME = ...;`");
    return SchemaType::Of(SchemaType::Kind::kNever);
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
      TypeRef shape = ResolveType(ns.name, *d.shape, 0);
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
    if (d.tags.has_value()) tags = ResolveType(ns.name, *d.tags, 0);
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
      TypeRef c = ResolveType(ns.name, *d.context, 0);
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
    for (auto& [name, info] : model_->entity_types) {
      std::vector<std::string> stack = info.parents;
      std::set<std::string> seen;
      while (!stack.empty()) {
        std::string p = stack.back();
        stack.pop_back();
        if (!seen.insert(p).second) continue;
        auto it = model_->entity_types.find(p);
        if (it == model_->entity_types.end()) continue;
        it->second.descendants.insert(name);
        for (const std::string& q : it->second.parents) stack.push_back(q);
      }
    }
  }

  void CloseActionHierarchy() {
    for (auto& [key, info] : model_->actions) {
      std::vector<ActionKey> stack = info.parents;
      std::set<ActionKey> seen;
      while (!stack.empty()) {
        ActionKey p = stack.back();
        stack.pop_back();
        if (!seen.insert(p).second) continue;
        if (p == key) {
          Error(codes::CH0407, action_spans_[key], Cat("action `", key.type, "::", Quoted(key.id), "` is in itself"),
                "the action hierarchy cannot have cycles");
          return;
        }
        auto it = model_->actions.find(p);
        if (it == model_->actions.end()) continue;
        for (const ActionKey& q : it->second.parents) stack.push_back(q);
      }
      info.ancestors = seen;
    }
    for (auto& [key, info] : model_->actions) {
      for (const ActionKey& a : info.ancestors) model_->actions[a].descendants.insert(key);
    }
  }

  const SchemaAst& ast_;
  SchemaModel* model_;
  Diagnostics* diags_;
  std::map<std::string, CommonEntry> commons_;
  std::map<ActionKey, Span> action_spans_;  // where each action is declared
  bool failed_ = false;
};

}  // namespace

bool Resolve(const SchemaAst& ast, SchemaModel* model, Diagnostics* diagnostics) {
  Resolver r(ast, model, diagnostics);
  return r.Run();
}

}  // namespace charter::internal
