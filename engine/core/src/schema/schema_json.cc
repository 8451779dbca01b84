// Cedar's JSON schema format -> SchemaAst.
//
//   {"NS": {"commonTypes": {"Name": TYPE},
//           "entityTypes": {"User": {"memberOfTypes": ["Group"], "shape": TYPE,
//                                    "tags": TYPE} | {"enum": ["a", "b"]}},
//           "actions": {"view": {"memberOf": [{"id": "read"}],
//                                "appliesTo": {"principalTypes": ["User"],
//                                              "resourceTypes": ["Doc"],
//                                              "context": TYPE}}}}}
//   TYPE = {"type": "Long" | "String" | "Boolean"} | {"type": "Set", "element": TYPE}
//        | {"type": "Record", "attributes": {"a": TYPE + "required"?}}
//        | {"type": "Entity" | "Extension" | "EntityOrCommon", "name": N} | {"type": COMMON}
// Every object may carry "annotations": {"key": "value"}. Unknown keys are
// faults, as they are for Cedar.
#include <string>
#include <string_view>

#include "common/strings.h"
#include "common/diagnostic_codes.h"
#include "json/json.h"
#include "schema/schema_parse.h"

namespace charter::internal::schema {
namespace {

using json::Value;

class Reader {
 public:
  Reader(const SourceFile& source, const SchemaOptions& options, Diagnostics* diags)
      : source_(source), options_(options), diags_(diags) {}

  SchemaAst Run() {
    SchemaAst out;
    json::ParseOptions po;
    po.max_depth = options_.max_nesting * 2 + 8;
    absl::StatusOr<json::Document> doc = json::Parse(source_.text(), po);
    if (!doc.ok()) {
      // "LINE:COL: message" -> a span at that position.
      std::string msg(doc.status().message());
      Span span = SpanOfLineCol(msg);
      size_t colon = msg.find(": ");
      Fail(codes::CH0411, span, colon == std::string::npos ? msg : msg.substr(colon + 2));
      return out;
    }
    const Value& root = doc->root();
    if (!root.is_object()) {
      Fail(codes::CH0410, At(root), "a JSON schema must be an object of namespaces");
      return out;
    }
    for (size_t i = 0; i < root.size() && ok_; ++i) {
      Namespace ns;
      ns.name = std::string(root.key(i));
      ns.braced = !ns.name.empty();
      ns.span = KeySpan(root, i);
      ReadNamespace(root.member(i), &ns);
      out.namespaces.push_back(std::move(ns));
    }
    return out;
  }

 private:
  void Fail(const char* code, Span span, std::string message, std::string help = "") {
    if (!ok_) return;
    ok_ = false;
    if (diags_ != nullptr) diags_->Error(code, span, std::move(message), std::move(help));
  }

  Span SpanOfLineCol(const std::string& msg) {
    uint32_t line = 0, col = 0;
    size_t i = 0;
    while (i < msg.size() && isdigit(static_cast<unsigned char>(msg[i]))) line = line * 10 + (msg[i++] - '0');
    if (i < msg.size() && msg[i] == ':') ++i;
    while (i < msg.size() && isdigit(static_cast<unsigned char>(msg[i]))) col = col * 10 + (msg[i++] - '0');
    // Walk to the byte offset of (line, col).
    std::string_view t = source_.text();
    uint32_t off = 0, l = 1;
    while (off < t.size() && l < line) {
      if (t[off] == '\n') ++l;
      ++off;
    }
    uint32_t c = 1;
    while (off < t.size() && c < col && t[off] != '\n') {
      ++off;
      while (off < t.size() && (static_cast<unsigned char>(t[off]) & 0xC0) == 0x80) ++off;
      ++c;
    }
    // At the end of the text, the last character.
    if (off >= t.size() && off > 0) off = static_cast<uint32_t>(t.size()) - 1;
    return {off, std::min<uint32_t>(off + 1, static_cast<uint32_t>(t.size()))};
  }

  // The span of a value: a whole string or literal; one character otherwise.
  Span At(const Value& v) {
    std::string_view t = source_.text();
    uint32_t b = v.offset();
    uint32_t e = b + 1;
    if (v.is_string()) {
      e = b + 1;
      while (e < t.size() && t[e] != '"') e += t[e] == '\\' ? 2 : 1;
      e = std::min<uint32_t>(e + 1, static_cast<uint32_t>(t.size()));
    } else if (v.is_number()) {
      e = b + static_cast<uint32_t>(v.number_text().size());
    } else if (v.is_bool() || v.is_null()) {
      e = b + (v.is_null() || v.as_bool() ? 4 : 5);
    }
    return {b, std::min<uint32_t>(e, static_cast<uint32_t>(t.size()))};
  }
  Span KeySpan(const Value& obj, size_t i) {
    uint32_t b = obj.key_offset(i);
    std::string_view t = source_.text();
    uint32_t e = b + 1;
    while (e < t.size() && t[e] != '"') e += t[e] == '\\' ? 2 : 1;
    return {b, std::min<uint32_t>(e + 1, static_cast<uint32_t>(t.size()))};
  }

  bool ExpectObject(const Value& v, std::string_view what) {
    if (v.is_object()) return true;
    Fail(codes::CH0410, At(v), Cat(what, " must be a JSON object"));
    return false;
  }
  bool ExpectArray(const Value& v, std::string_view what) {
    if (v.is_array()) return true;
    Fail(codes::CH0410, At(v), Cat(what, " must be a JSON array"));
    return false;
  }
  bool ExpectString(const Value& v, std::string_view what) {
    if (v.is_string()) return true;
    Fail(codes::CH0410, At(v), Cat(what, " must be a string"));
    return false;
  }
  void UnknownKey(const Value& obj, size_t i, std::string_view where, std::string_view allowed) {
    Fail(codes::CH0410, KeySpan(obj, i), Cat("unknown field `", obj.key(i), "` in ", where),
         Cat("expected one of ", allowed));
  }

  void ReadAnnotations(const Value& v, std::vector<Annotation>* out) {
    if (!ExpectObject(v, "`annotations`")) return;
    for (size_t i = 0; i < v.size() && ok_; ++i) {
      Annotation a;
      a.key = std::string(v.key(i));
      if (!ExpectString(v.member(i), "an annotation value")) return;
      a.value = std::string(v.member(i).as_string());
      a.has_value = true;
      out->push_back(std::move(a));
    }
  }

  void ReadNamespace(const Value& v, Namespace* ns) {
    if (!ExpectObject(v, "a namespace")) return;
    bool has_entities = false, has_actions = false;
    for (size_t i = 0; i < v.size() && ok_; ++i) {
      std::string_view k = v.key(i);
      const Value& m = v.member(i);
      if (k == "entityTypes") {
        has_entities = true;
        if (!ExpectObject(m, "`entityTypes`")) return;
        for (size_t j = 0; j < m.size() && ok_; ++j) {
          EntityDecl d;
          d.names.emplace_back(m.key(j));
          d.name_spans.push_back(KeySpan(m, j));
          d.span = KeySpan(m, j);
          ReadEntity(m.member(j), &d);
          ns->order.emplace_back('e', ns->entities.size());
          ns->entities.push_back(std::move(d));
        }
      } else if (k == "actions") {
        has_actions = true;
        if (!ExpectObject(m, "`actions`")) return;
        for (size_t j = 0; j < m.size() && ok_; ++j) {
          ActionDecl d;
          d.names.emplace_back(m.key(j));
          d.name_spans.push_back(KeySpan(m, j));
          d.span = KeySpan(m, j);
          ReadAction(m.member(j), &d);
          ns->order.emplace_back('a', ns->actions.size());
          ns->actions.push_back(std::move(d));
        }
      } else if (k == "commonTypes") {
        if (!ExpectObject(m, "`commonTypes`")) return;
        for (size_t j = 0; j < m.size() && ok_; ++j) {
          CommonTypeDecl d;
          d.name = std::string(m.key(j));
          d.span = KeySpan(m, j);
          d.type = ReadType(m.member(j), 0, &d.annotations);
          ns->order.emplace_back('c', ns->common_types.size());
          ns->common_types.push_back(std::move(d));
        }
      } else if (k == "annotations") {
        ReadAnnotations(m, &ns->annotations);
      } else {
        UnknownKey(v, i, "a namespace", "`entityTypes`, `actions`, `commonTypes`, `annotations`");
      }
    }
    if (ok_ && (!has_entities || !has_actions)) {
      Fail(codes::CH0410, ns->span,
           Cat(ns->name.empty() ? std::string("the empty namespace") : Cat("namespace `", ns->name, "`"),
               " lacks `", has_entities ? "actions" : "entityTypes", "`"));
    }
  }

  void ReadEntity(const Value& v, EntityDecl* d) {
    if (!ExpectObject(v, "an entity type")) return;
    bool has_shape_or_parents = false;
    for (size_t i = 0; i < v.size() && ok_; ++i) {
      std::string_view k = v.key(i);
      const Value& m = v.member(i);
      if (k == "memberOfTypes") {
        has_shape_or_parents = true;
        if (!ExpectArray(m, "`memberOfTypes`")) return;
        for (size_t j = 0; j < m.size() && ok_; ++j) {
          if (!ExpectString(m.at(j), "an entity type name")) return;
          d->parents.emplace_back(m.at(j).as_string());
          d->parent_spans.push_back(At(m.at(j)));
        }
      } else if (k == "shape") {
        has_shape_or_parents = true;
        d->shape = ReadType(m, 0, nullptr);
      } else if (k == "tags") {
        has_shape_or_parents = true;
        d->tags = ReadType(m, 0, nullptr);
      } else if (k == "enum") {
        d->is_enum = true;
        if (!ExpectArray(m, "`enum`")) return;
        if (m.size() == 0) {
          Fail(codes::CH0410, At(m), "`enum` needs at least one choice");
          return;
        }
        for (size_t j = 0; j < m.size() && ok_; ++j) {
          if (!ExpectString(m.at(j), "an enum choice")) return;
          d->choices.emplace_back(m.at(j).as_string());
          d->choice_spans.push_back(At(m.at(j)));
        }
      } else if (k == "annotations") {
        ReadAnnotations(m, &d->annotations);
      } else {
        UnknownKey(v, i, "an entity type",
                   "`memberOfTypes`, `shape`, `tags`, `enum`, `annotations`");
      }
    }
    if (ok_ && d->is_enum && has_shape_or_parents) {
      Fail(codes::CH0410, d->span, "an enumerated entity type has no `shape`, `tags` or `memberOfTypes`");
    }
  }

  void ReadTypeNames(const Value& m, std::string_view what, std::vector<std::string>* out,
                     std::vector<Span>* spans) {
    if (!ExpectArray(m, what)) return;
    for (size_t j = 0; j < m.size() && ok_; ++j) {
      if (!ExpectString(m.at(j), "an entity type name")) return;
      out->emplace_back(m.at(j).as_string());
      spans->push_back(At(m.at(j)));
    }
  }

  void ReadAction(const Value& v, ActionDecl* d) {
    if (!ExpectObject(v, "an action")) return;
    for (size_t i = 0; i < v.size() && ok_; ++i) {
      std::string_view k = v.key(i);
      const Value& m = v.member(i);
      if (k == "memberOf") {
        if (!ExpectArray(m, "`memberOf`")) return;
        for (size_t j = 0; j < m.size() && ok_; ++j) {
          const Value& r = m.at(j);
          if (!ExpectObject(r, "an action reference")) return;
          ActionRef ref;
          ref.span = At(r);
          bool has_id = false;
          for (size_t q = 0; q < r.size() && ok_; ++q) {
            if (r.key(q) == "id") {
              if (!ExpectString(r.member(q), "`id`")) return;
              ref.id = std::string(r.member(q).as_string());
              ref.span = At(r.member(q));
              has_id = true;
            } else if (r.key(q) == "type") {
              if (!ExpectString(r.member(q), "`type`")) return;
              ref.type = std::string(r.member(q).as_string());
            } else {
              UnknownKey(r, q, "an action reference", "`id`, `type`");
            }
          }
          if (ok_ && !has_id) Fail(codes::CH0410, At(r), "an action reference needs an `id`");
          d->parents.push_back(std::move(ref));
        }
      } else if (k == "appliesTo") {
        if (m.is_null()) continue;
        if (!ExpectObject(m, "`appliesTo`")) return;
        d->has_applies_to = true;
        if (m.Find("principalTypes") == nullptr || m.Find("resourceTypes") == nullptr) {
          Fail(codes::CH0410, At(m), Cat("`appliesTo` lacks `",
                                    m.Find("principalTypes") == nullptr ? "principalTypes" : "resourceTypes", "`"));
          return;
        }
        for (size_t j = 0; j < m.size() && ok_; ++j) {
          std::string_view a = m.key(j);
          if (a == "principalTypes") {
            ReadTypeNames(m.member(j), "`principalTypes`", &d->principals, &d->principal_spans);
          } else if (a == "resourceTypes") {
            ReadTypeNames(m.member(j), "`resourceTypes`", &d->resources, &d->resource_spans);
          } else if (a == "context") {
            d->context = ReadType(m.member(j), 0, nullptr);
          } else {
            UnknownKey(m, j, "`appliesTo`", "`principalTypes`, `resourceTypes`, `context`");
          }
        }
      } else if (k == "annotations") {
        ReadAnnotations(m, &d->annotations);
      } else {
        UnknownKey(v, i, "an action", "`memberOf`, `appliesTo`, `annotations`");
      }
    }
  }

  // One TYPE. Inside a record's "attributes", `required` is allowed too, and
  // `attr` receives it.
  TypeExpr ReadType(const Value& v, int depth, std::vector<Annotation>* annots,
                    AttrDecl* attr = nullptr) {
    TypeExpr t;
    t.span = At(v);
    if (depth > options_.max_nesting) {
      Fail(codes::CH0412, At(v), Cat("schema nested deeper than ", options_.max_nesting, " levels"));
      return t;
    }
    if (!ExpectObject(v, "a type")) return t;
    const Value* type = v.Find("type");
    if (type == nullptr) {
      Fail(codes::CH0410, At(v), "a type needs a `type` field");
      return t;
    }
    if (!ExpectString(*type, "`type`")) return t;
    std::string_view kind = type->as_string();
    t.span = At(*type);
    bool is_set = kind == "Set", is_record = kind == "Record";
    bool named = kind == "Entity" || kind == "Extension" || kind == "EntityOrCommon";
    for (size_t i = 0; i < v.size() && ok_; ++i) {
      std::string_view k = v.key(i);
      const Value& m = v.member(i);
      if (k == "type") continue;
      if (k == "element" && is_set) {
        t.elem = std::make_shared<TypeExpr>(ReadType(m, depth + 1, nullptr));
      } else if (k == "attributes" && is_record) {
        if (!ExpectObject(m, "`attributes`")) return t;
        for (size_t j = 0; j < m.size() && ok_; ++j) {
          AttrDecl a;
          a.name = std::string(m.key(j));
          a.span = KeySpan(m, j);
          a.type = ReadType(m.member(j), depth + 1, &a.annotations, &a);
          t.attrs.push_back(std::move(a));
        }
      } else if (k == "additionalAttributes" && is_record) {
        if (!m.is_bool()) {
          Fail(codes::CH0410, At(m), "`additionalAttributes` must be true or false");
          return t;
        }
        if (m.as_bool()) {
          // Cedar 4.5 refuses them: open records are an experimental feature
          // of its `partial-validate` build, not of the language.
          Fail(codes::CH0410, At(m), "records with `additionalAttributes: true` are not supported");
          return t;
        }
        t.additional_attributes = false;
      } else if (k == "name" && named) {
        if (!ExpectString(m, "`name`")) return t;
        t.name = std::string(m.as_string());
      } else if (k == "required" && attr != nullptr) {
        if (!m.is_bool()) {
          Fail(codes::CH0410, At(m), "`required` must be true or false");
          return t;
        }
        attr->required = m.as_bool();
      } else if (k == "annotations" && annots != nullptr) {
        ReadAnnotations(m, annots);
      } else {
        UnknownKey(v, i, Cat("a type of kind `", kind, "`"), "the fields of that kind");
      }
    }
    if (!ok_) return t;
    if (is_set) {
      t.kind = TypeExpr::Kind::kSet;
      if (t.elem == nullptr) Fail(codes::CH0410, At(v), "a `Set` type needs an `element`");
    } else if (is_record) {
      t.kind = TypeExpr::Kind::kRecord;
    } else if (named) {
      t.kind = TypeExpr::Kind::kName;
      t.hint = kind == "Entity"      ? TypeExpr::Hint::kEntity
               : kind == "Extension" ? TypeExpr::Hint::kExtension
                                     : TypeExpr::Hint::kAny;
      if (t.name.empty()) Fail(codes::CH0410, At(v), Cat("a type of kind `", kind, "` needs a `name`"));
    } else if (kind == "Long" || kind == "String" || kind == "Boolean") {
      t.kind = TypeExpr::Kind::kName;
      t.hint = TypeExpr::Hint::kPrimitive;
      t.name = kind == "Boolean" ? "Bool" : std::string(kind);
    } else {
      // A common type's name.
      t.kind = TypeExpr::Kind::kName;
      t.hint = TypeExpr::Hint::kAny;
      t.name = std::string(kind);
    }
    return t;
  }

  const SourceFile& source_;
  const SchemaOptions& options_;
  Diagnostics* diags_;
  bool ok_ = true;
};

}  // namespace

SchemaAst ParseSchemaJson(const SourceFile& source, const SchemaOptions& options,
                          Diagnostics* diagnostics) {
  Reader reader(source, options, diagnostics);
  return reader.Run();
}

}  // namespace charter::internal::schema
