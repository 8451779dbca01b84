// SchemaAst -> Cedar's schema text, and -> Cedar's JSON schema format.
#include <string>
#include <string_view>

#include "common/names.h"
#include "common/strings.h"
#include "json/json.h"
#include "schema/schema_parse.h"

namespace charter::internal::schema {

std::string QuoteCedar(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\0': out += "\\0"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          constexpr char kHex[] = "0123456789abcdef";
          out += "\\u{";
          out.push_back(kHex[(c >> 4) & 0xF]);
          out.push_back(kHex[c & 0xF]);
          out += "}";
        } else {
          out.push_back(c);
        }
    }
  }
  out += "\"";
  return out;
}

namespace {

// Keywords of the schema grammar that a bare attribute name could be taken for.
bool IsReservedWord(std::string_view s) {
  return s == "true" || s == "false" || s == "if" || s == "then" || s == "else" || s == "in" ||
         s == "is" || s == "like" || s == "has" || s.rfind("__cedar", 0) == 0;
}

std::string Key(std::string_view s) {
  return IsIdentifierShaped(s) && !IsReservedWord(s) ? std::string(s) : QuoteCedar(s);
}

void Indent(std::string* out, int n) { out->append(static_cast<size_t>(n) * 2, ' '); }

void TextAnnotations(std::string* out, const std::vector<Annotation>& annots, int indent) {
  for (const Annotation& a : annots) {
    Indent(out, indent);
    CatAppend(out, "@", a.key);
    if (a.has_value) CatAppend(out, "(", QuoteCedar(a.value), ")");
    out->append("\n");
  }
}

void TextType(std::string* out, const TypeExpr& t, int indent) {
  switch (t.kind) {
    case TypeExpr::Kind::kName:
      if (t.hint == TypeExpr::Hint::kPrimitive) {
        out->append(t.name);  // Long, String, Bool
      } else {
        out->append(t.name);
      }
      return;
    case TypeExpr::Kind::kSet:
      out->append("Set<");
      if (t.elem != nullptr) TextType(out, *t.elem, indent);
      out->append(">");
      return;
    case TypeExpr::Kind::kRecord: {
      if (t.attrs.empty()) {
        out->append("{}");
        return;
      }
      out->append("{\n");
      for (size_t i = 0; i < t.attrs.size(); ++i) {
        const AttrDecl& a = t.attrs[i];
        TextAnnotations(out, a.annotations, indent + 1);
        Indent(out, indent + 1);
        CatAppend(out, Key(a.name), a.required ? "" : "?", ": ");
        TextType(out, a.type, indent + 1);
        out->append(i + 1 < t.attrs.size() ? ",\n" : "\n");
      }
      Indent(out, indent);
      out->append("}");
      return;
    }
  }
}

void TextList(std::string* out, const std::vector<std::string>& names) {
  out->append("[");
  for (size_t i = 0; i < names.size(); ++i) CatAppend(out, i > 0 ? ", " : "", names[i]);
  out->append("]");
}

void TextNamespaceBody(std::string* out, const Namespace& ns, int indent) {
  for (auto [kind, index] : ns.order) {
    if (kind == 'c') {
      const CommonTypeDecl& d = ns.common_types[index];
      TextAnnotations(out, d.annotations, indent);
      Indent(out, indent);
      CatAppend(out, "type ", d.name, " = ");
      TextType(out, d.type, indent);
      out->append(";\n");
    } else if (kind == 'e') {
      const EntityDecl& d = ns.entities[index];
      TextAnnotations(out, d.annotations, indent);
      Indent(out, indent);
      out->append("entity ");
      for (size_t i = 0; i < d.names.size(); ++i) CatAppend(out, i > 0 ? ", " : "", d.names[i]);
      if (d.is_enum) {
        out->append(" enum [");
        for (size_t i = 0; i < d.choices.size(); ++i) {
          CatAppend(out, i > 0 ? ", " : "", QuoteCedar(d.choices[i]));
        }
        out->append("]");
      } else {
        if (!d.parents.empty()) {
          out->append(" in ");
          TextList(out, d.parents);
        }
        if (d.shape.has_value()) {
          out->append(" = ");
          TextType(out, *d.shape, indent);
        }
        if (d.tags.has_value()) {
          out->append(" tags ");
          TextType(out, *d.tags, indent);
        }
      }
      out->append(";\n");
    } else {
      const ActionDecl& d = ns.actions[index];
      TextAnnotations(out, d.annotations, indent);
      Indent(out, indent);
      out->append("action ");
      for (size_t i = 0; i < d.names.size(); ++i) {
        CatAppend(out, i > 0 ? ", " : "", QuoteCedar(d.names[i]));
      }
      if (!d.parents.empty()) {
        out->append(" in [");
        for (size_t i = 0; i < d.parents.size(); ++i) {
          const ActionRef& r = d.parents[i];
          CatAppend(out, i > 0 ? ", " : "", r.type.empty() ? "" : Cat(r.type, "::"),
                    QuoteCedar(r.id));
        }
        out->append("]");
      }
      // An empty list applies to nothing, as no `appliesTo` does (and the
      // text format has no way to write one).
      if (d.has_applies_to && !d.principals.empty() && !d.resources.empty()) {
        out->append(" appliesTo {\n");
        Indent(out, indent + 1);
        out->append("principal: ");
        TextList(out, d.principals);
        out->append(",\n");
        Indent(out, indent + 1);
        out->append("resource: ");
        TextList(out, d.resources);
        if (d.context.has_value()) {
          out->append(",\n");
          Indent(out, indent + 1);
          out->append("context: ");
          TextType(out, *d.context, indent + 1);
        }
        out->append("\n");
        Indent(out, indent);
        out->append("}");
      }
      out->append(";\n");
    }
  }
}

// --- JSON --------------------------------------------------------------------

void Quote(std::string* out, std::string_view s) { json::AppendQuoted(out, s); }

void JsonAnnotations(std::string* out, const std::vector<Annotation>& annots, int indent,
                     bool* first) {
  if (annots.empty()) return;
  CatAppend(out, *first ? "" : ",", "\n");
  *first = false;
  Indent(out, indent);
  out->append("\"annotations\": {");
  for (size_t i = 0; i < annots.size(); ++i) {
    out->append(i > 0 ? ", " : "");
    Quote(out, annots[i].key);
    out->append(": ");
    Quote(out, annots[i].value);
  }
  out->append("}");
}

bool IsExtensionName(std::string_view n) {
  return n == "ipaddr" || n == "decimal" || n == "datetime" || n == "duration";
}

void JsonType(std::string* out, const TypeExpr& t, int indent, const AttrDecl* attr) {
  out->append("{");
  bool first = true;
  auto field = [&](std::string_view key) {
    CatAppend(out, first ? "" : ",", "\n");
    first = false;
    Indent(out, indent + 1);
    Quote(out, key);
    out->append(": ");
  };
  switch (t.kind) {
    case TypeExpr::Kind::kName: {
      std::string_view n = t.name;
      if (n.rfind("__cedar::", 0) == 0) n.remove_prefix(9);
      bool primitive = t.hint == TypeExpr::Hint::kPrimitive ||
                       (t.hint == TypeExpr::Hint::kAny && n != t.name) ||
                       (t.hint == TypeExpr::Hint::kAny &&
                        (n == "Long" || n == "String" || n == "Bool" || n == "Boolean"));
      bool extension = t.hint == TypeExpr::Hint::kExtension ||
                       (t.hint == TypeExpr::Hint::kAny && IsExtensionName(n));
      if (primitive && !IsExtensionName(n)) {
        field("type");
        Quote(out, n == "Bool" ? std::string_view("Boolean") : n);
      } else if (extension) {
        field("type");
        Quote(out, "Extension");
        field("name");
        Quote(out, n);
      } else {
        field("type");
        Quote(out, t.hint == TypeExpr::Hint::kEntity ? "Entity" : "EntityOrCommon");
        field("name");
        Quote(out, t.name);
      }
      break;
    }
    case TypeExpr::Kind::kSet:
      field("type");
      Quote(out, "Set");
      field("element");
      if (t.elem != nullptr) JsonType(out, *t.elem, indent + 1, nullptr);
      break;
    case TypeExpr::Kind::kRecord:
      field("type");
      Quote(out, "Record");
      field("attributes");
      out->append("{");
      for (size_t i = 0; i < t.attrs.size(); ++i) {
        CatAppend(out, i > 0 ? "," : "", "\n");
        Indent(out, indent + 2);
        Quote(out, t.attrs[i].name);
        out->append(": ");
        JsonType(out, t.attrs[i].type, indent + 2, &t.attrs[i]);
      }
      if (!t.attrs.empty()) {
        out->append("\n");
        Indent(out, indent + 1);
      }
      out->append("}");
      if (t.additional_attributes) {
        field("additionalAttributes");
        out->append("true");
      }
      break;
  }
  if (attr != nullptr && !attr->required) {
    field("required");
    out->append("false");
  }
  if (attr != nullptr) JsonAnnotations(out, attr->annotations, indent + 1, &first);
  out->append("\n");
  Indent(out, indent);
  out->append("}");
}

void JsonNames(std::string* out, const std::vector<std::string>& names) {
  out->append("[");
  for (size_t i = 0; i < names.size(); ++i) {
    out->append(i > 0 ? ", " : "");
    Quote(out, names[i]);
  }
  out->append("]");
}

}  // namespace

std::string PrintSchemaText(const SchemaAst& schema) {
  std::string out;
  for (size_t n = 0; n < schema.namespaces.size(); ++n) {
    const Namespace& ns = schema.namespaces[n];
    if (n > 0) out.append("\n");
    if (ns.name.empty()) {
      TextNamespaceBody(&out, ns, 0);
    } else {
      TextAnnotations(&out, ns.annotations, 0);
      CatAppend(&out, "namespace ", ns.name, " {\n");
      TextNamespaceBody(&out, ns, 1);
      out.append("}\n");
    }
  }
  return out;
}

std::string PrintSchemaJson(const SchemaAst& schema) {
  // Namespaces written twice in the text (or the empty one split by others)
  // are one object in JSON.
  std::vector<std::string> names;
  for (const Namespace& ns : schema.namespaces) {
    if (std::find(names.begin(), names.end(), ns.name) == names.end()) names.push_back(ns.name);
  }
  std::string out = "{";
  for (size_t n = 0; n < names.size(); ++n) {
    CatAppend(&out, n > 0 ? "," : "", "\n  ");
    Quote(&out, names[n]);
    out.append(": {");
    std::string common, entities, actions;
    std::vector<Annotation> annots;
    for (const Namespace& ns : schema.namespaces) {
      if (ns.name != names[n]) continue;
      annots.insert(annots.end(), ns.annotations.begin(), ns.annotations.end());
      for (auto [kind, index] : ns.order) {
        if (kind == 'c') {
          const CommonTypeDecl& d = ns.common_types[index];
          CatAppend(&common, common.empty() ? "" : ",", "\n      ");
          Quote(&common, d.name);
          common.append(": ");
          AttrDecl carrier;  // carries the common type's annotations
          carrier.annotations = d.annotations;
          std::string t;
          JsonType(&t, d.type, 3, nullptr);
          if (!d.annotations.empty()) {
            // Insert the annotations before the closing brace.
            size_t close = t.rfind('}');
            std::string extra;
            bool first = false;
            JsonAnnotations(&extra, d.annotations, 4, &first);
            size_t nl = t.rfind('\n', close);
            t.insert(nl, extra);
          }
          common.append(t);
        } else if (kind == 'e') {
          const EntityDecl& d = ns.entities[index];
          for (const std::string& name : d.names) {
            CatAppend(&entities, entities.empty() ? "" : ",", "\n      ");
            Quote(&entities, name);
            entities.append(": {");
            bool first = true;
            auto field = [&](std::string_view key) {
              CatAppend(&entities, first ? "" : ",", "\n        ");
              first = false;
              Quote(&entities, key);
              entities.append(": ");
            };
            if (d.is_enum) {
              field("enum");
              JsonNames(&entities, d.choices);
            } else {
              if (!d.parents.empty()) {
                field("memberOfTypes");
                JsonNames(&entities, d.parents);
              }
              if (d.shape.has_value()) {
                field("shape");
                JsonType(&entities, *d.shape, 4, nullptr);
              }
              if (d.tags.has_value()) {
                field("tags");
                JsonType(&entities, *d.tags, 4, nullptr);
              }
            }
            JsonAnnotations(&entities, d.annotations, 4, &first);
            CatAppend(&entities, first ? "}" : "\n      }");
          }
        } else {
          const ActionDecl& d = ns.actions[index];
          for (const std::string& name : d.names) {
            CatAppend(&actions, actions.empty() ? "" : ",", "\n      ");
            Quote(&actions, name);
            actions.append(": {");
            bool first = true;
            auto field = [&](std::string_view key) {
              CatAppend(&actions, first ? "" : ",", "\n        ");
              first = false;
              Quote(&actions, key);
              actions.append(": ");
            };
            if (!d.parents.empty()) {
              field("memberOf");
              actions.append("[");
              for (size_t i = 0; i < d.parents.size(); ++i) {
                actions.append(i > 0 ? ", " : "");
                actions.append("{\"id\": ");
                Quote(&actions, d.parents[i].id);
                if (!d.parents[i].type.empty()) {
                  actions.append(", \"type\": ");
                  Quote(&actions, d.parents[i].type);
                }
                actions.append("}");
              }
              actions.append("]");
            }
            if (d.has_applies_to) {
              field("appliesTo");
              actions.append("{\n          \"principalTypes\": ");
              JsonNames(&actions, d.principals);
              actions.append(",\n          \"resourceTypes\": ");
              JsonNames(&actions, d.resources);
              if (d.context.has_value()) {
                actions.append(",\n          \"context\": ");
                JsonType(&actions, *d.context, 5, nullptr);
              }
              actions.append("\n        }");
            }
            JsonAnnotations(&actions, d.annotations, 4, &first);
            CatAppend(&actions, first ? "}" : "\n      }");
          }
        }
      }
    }
    bool first_field = true;
    auto section = [&](std::string_view key, const std::string& body, bool always) {
      if (body.empty() && !always) return;
      CatAppend(&out, first_field ? "" : ",", "\n    ");
      first_field = false;
      Quote(&out, key);
      CatAppend(&out, ": {", body, body.empty() ? "}" : "\n    }");
    };
    section("commonTypes", common, false);
    section("entityTypes", entities, true);
    section("actions", actions, true);
    if (!annots.empty()) {
      JsonAnnotations(&out, annots, 2, &first_field);
    }
    out.append("\n  }");
  }
  out.append(names.empty() ? "}\n" : "\n}\n");
  return out;
}

}  // namespace charter::internal::schema
