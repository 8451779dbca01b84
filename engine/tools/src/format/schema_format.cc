// The schema formatter: Cedar's schema text in, the same schema in canonical
// layout out (charter/format.h, FormatSchema). The text is read into the
// schema AST (schema/schema_ast.h), whose spans place the comments the lexer
// skips; namespaces, annotations and the lines between declarations are
// written directly, and each declaration is laid out through the formatters'
// document (document.h), so that a record or `appliesTo` is on one line when
// it fits and one entry a line otherwise. As in format.cc, a comment is
// emitted at the first point of the output whose source position lies after
// it and forces the groups around it to break, which keeps the layout around
// it the same on every run.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "charter/format.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "format/document.h"
#include "json/json.h"
#include "schema/schema_ast.h"
#include "schema/schema_parse.h"

namespace charter {
namespace internal {
namespace {

using schema::ActionDecl;
using schema::ActionRef;
using schema::Annotation;
using schema::AttrDecl;
using schema::CommonTypeDecl;
using schema::EntityDecl;
using schema::Namespace;
using schema::SchemaAst;
using schema::TypeExpr;

std::string AnnotationText(const Annotation& a) {
  return a.has_value ? Cat("@", a.key, "(", schema::QuoteCedar(a.value), ")") : Cat("@", a.key);
}

class SchemaPrinter {
 public:
  SchemaPrinter(const SourceFile& source, const FormatOptions& options)
      : text_(source.text()), options_(options), comments_(FindComments(source.text())) {}

  std::string Print(const SchemaAst& ast) {
    for (const Namespace& ns : ast.namespaces) {
      if (!ns.braced) {
        Body(ns, 0);
        continue;
      }
      if (ns.span.end == 0 || ns.span.end > text_.size()) {
        Refuse(ns.span, "a namespace without its source position cannot be formatted");
        continue;
      }
      uint32_t begin = ns.annotations.empty() ? ns.span.begin : ns.annotations[0].span.begin;
      Head(ns.annotations, begin, ns.span.begin, 0);
      CatAppend(&out_, "namespace ", ns.name, " {");
      uint32_t open = FindCode(ns.span.begin, '{');
      if (open < text_.size()) TrailingComment(open + 1);
      block_start_ = true;
      Body(ns, Indent(1));
      Comments(ns.span.end - 1, Indent(1));
      NewLine(false);
      out_ += "}";
      block_start_ = false;
      TrailingComment(ns.span.end);
    }
    Comments(static_cast<uint32_t>(text_.size()) + 1, 0);
    if (!out_.empty()) out_.push_back('\n');
    return out_;
  }

  const std::string& refusal() const { return refusal_; }
  Span refusal_span() const { return refusal_span_; }

 private:
  size_t Indent(int level) const { return static_cast<size_t>(level * options_.indent_width); }

  void Refuse(Span span, std::string message) {
    if (!refusal_.empty()) return;
    refusal_ = std::move(message);
    refusal_span_ = span;
  }

  // ---- lines, written directly ------------------------------------------------

  // Ends the output's last line, with an empty line after it if `blank` (not
  // at the top of the file nor right after a block's `{`).
  void NewLine(bool blank) {
    if (out_.empty()) return;
    out_ += blank && !block_start_ ? "\n\n" : "\n";
  }

  void Line(size_t indent, bool blank, std::string_view text) {
    NewLine(blank);
    out_.append(indent, ' ');
    out_ += text;
    block_start_ = false;
  }

  // The comments before `pos` not yet emitted, each on a line of its own.
  void Comments(uint32_t pos, size_t indent) {
    while (next_ < comments_.size() && comments_[next_].begin < pos) {
      const SourceComment& c = comments_[next_++];
      Line(indent, c.blank_before, TrimmedComment(text_, c));
    }
  }

  // The comment that follows `end` on its line with only blanks between,
  // appended to the output's last line.
  void TrailingComment(uint32_t end) {
    if (next_ >= comments_.size() || comments_[next_].begin < end) return;
    std::string_view between = text_.substr(end, comments_[next_].begin - end);
    if (between.find_first_not_of(" \t\r\f") != std::string_view::npos) return;
    CatAppend(&out_, " ", TrimmedComment(text_, comments_[next_++]));
  }

  // The offset of the first `want` at or after `pos` outside comments and
  // strings; the text's size if there is none.
  uint32_t FindCode(uint32_t pos, char want) const {
    size_t i = pos;
    while (i < text_.size()) {
      i = NextCode(text_, static_cast<uint32_t>(i));
      if (i >= text_.size() || text_[i] == want) break;
      if (text_[i] == '"') {
        ++i;
        while (i < text_.size() && text_[i] != '"') i += text_[i] == '\\' ? 2 : 1;
      }
      ++i;
    }
    return static_cast<uint32_t>(std::min(i, text_.size()));
  }

  // Where the `]` closing a list whose last item ends at `end` is (past a
  // trailing comma); `end` itself when the list has no brackets.
  uint32_t CloseOf(uint32_t end) const {
    uint32_t p = NextCode(text_, end);
    if (p < text_.size() && text_[p] == ',') p = NextCode(text_, p + 1);
    return p < text_.size() && text_[p] == ']' ? p : end;
  }

  bool QuotedAt(Span span) const { return span.begin < text_.size() && text_[span.begin] == '"'; }

  // A name as the source writes it: bare, or as a string.
  std::string Written(std::string_view name, Span span) const {
    return QuotedAt(span) ? schema::QuoteCedar(name) : std::string(name);
  }

  // The comments and annotations before a declaration or namespace whose
  // text (its first annotation, or its keyword) starts at `begin`, then a
  // new line at `indent` for its keyword at `keyword`.
  void Head(const std::vector<Annotation>& annotations, uint32_t begin, uint32_t keyword,
            size_t indent) {
    Comments(begin, indent);
    bool blank = BlankBefore(text_, begin);
    for (const Annotation& a : annotations) {
      Comments(a.span.begin, indent);
      Line(indent, blank, AnnotationText(a));
      blank = false;
      TrailingComment(a.span.end);
    }
    Comments(keyword, indent);
    NewLine(blank);
    out_.append(indent, ' ');
    block_start_ = false;
  }

  void Body(const Namespace& ns, size_t indent) {
    for (auto [kind, index] : ns.order) {
      Document doc;
      doc_ = &doc;
      int root = 0;
      uint32_t end = 0;
      if (kind == 'c') {
        const CommonTypeDecl& d = ns.common_types[index];
        uint32_t keyword = CommonKeyword(d.span.begin);
        Head(d.annotations, d.annotations.empty() ? keyword : d.annotations[0].span.begin, keyword,
             indent);
        root = Common(d);
        end = AfterSemicolon(d.type.span.end);
      } else if (kind == 'e') {
        const EntityDecl& d = ns.entities[index];
        Head(d.annotations, d.annotations.empty() ? d.span.begin : d.annotations[0].span.begin,
             d.span.begin, indent);
        root = Entity(d);
        end = d.span.end;
      } else {
        const ActionDecl& d = ns.actions[index];
        Head(d.annotations, d.annotations.empty() ? d.span.begin : d.annotations[0].span.begin,
             d.span.begin, indent);
        root = Action(d);
        end = d.span.end;
      }
      // Head() wrote the indentation; the document writes it again.
      out_.resize(out_.size() - indent);
      out_ += doc.Render(root, options_.line_width, options_.indent_width, indent);
      doc_ = nullptr;
      TrailingComment(end);
    }
  }

  // Where the `type` keyword before a common type's name starts; the name's
  // position if something other than blanks is between them.
  uint32_t CommonKeyword(uint32_t name) const {
    size_t i = name;
    while (i > 0 && (text_[i - 1] == ' ' || text_[i - 1] == '\t' || text_[i - 1] == '\r' ||
                     text_[i - 1] == '\n' || text_[i - 1] == '\f')) {
      --i;
    }
    return i >= 4 && text_.substr(i - 4, 4) == "type" ? static_cast<uint32_t>(i - 4) : name;
  }

  uint32_t AfterSemicolon(uint32_t end) const {
    uint32_t p = NextCode(text_, end);
    return p < text_.size() && text_[p] == ';' ? p + 1 : end;
  }

  // ---- declarations, through the document -------------------------------------

  int T(std::string s) { return doc_->Text(std::move(s)); }

  int Flush(uint32_t pos) {
    std::vector<int> kids;
    while (next_ < comments_.size() && comments_[next_].begin < pos) {
      const SourceComment& c = comments_[next_++];
      kids.push_back(doc_->Comment(TrimmedComment(text_, c), c.trailing));
    }
    return doc_->Concat(std::move(kids));
  }

  // `[item, item, ...]`, one item a line when it does not fit.
  int List(size_t count, const std::function<uint32_t(size_t)>& begin,
           const std::function<std::string(size_t)>& item, uint32_t close_pos) {
    // One item stays on its line: `in [Group]` broken over three lines
    // would only be longer.
    if (count == 1 && !CommentBefore(close_pos)) return T(Cat("[", item(0), "]"));
    std::vector<int> inner;
    for (size_t i = 0; i < count; ++i) {
      if (i > 0) inner.push_back(T(","));
      inner.push_back(Flush(begin(i)));
      inner.push_back(i == 0 ? doc_->SoftLine() : doc_->Line());
      inner.push_back(T(item(i)));
    }
    // No comma after the last item: Cedar's grammar has none in a list
    // (records and `appliesTo` take one).
    inner.push_back(Flush(close_pos));
    return doc_->Group({T("["), doc_->Indent(std::move(inner)), doc_->SoftLine(), T("]")});
  }

  bool CommentBefore(uint32_t pos) const { return next_ < comments_.size() && comments_[next_].begin < pos; }

  int Names(const std::vector<std::string>& names, const std::vector<Span>& spans, bool as_written) {
    std::vector<int> kids;
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) kids.push_back(T(", "));
      kids.push_back(Flush(spans[i].begin));
      kids.push_back(T(as_written ? Written(names[i], spans[i]) : names[i]));
    }
    return doc_->Concat(std::move(kids));
  }

  int TypeList(const std::vector<std::string>& names, const std::vector<Span>& spans) {
    if (names.empty()) return T("[]");
    return List(
        names.size(), [&](size_t i) { return spans[i].begin; }, [&](size_t i) { return names[i]; },
        CloseOf(spans.back().end));
  }

  // A type; `suffix` (if any) makes the document written right after it,
  // inside a record's group so that the record fits with it or breaks. It is
  // called after the type's own documents are made, so that comments are
  // taken in the order of the source.
  using Suffix = std::function<int()>;

  int Type(const TypeExpr& t, const Suffix& suffix) {
    int lead = Flush(t.span.begin);
    int body = 0;
    switch (t.kind) {
      case TypeExpr::Kind::kName:
        if (t.hint != TypeExpr::Hint::kAny) Refuse(t.span, "a type of Cedar's JSON schema format cannot be formatted as text");
        body = T(t.name);
        break;
      case TypeExpr::Kind::kSet:
        if (t.elem == nullptr) {
          Refuse(t.span, "a set type without its element type cannot be formatted");
          body = T("Set<>");
        } else {
          body = doc_->Concat({T("Set<"), Type(*t.elem, nullptr), T(">")});
        }
        break;
      case TypeExpr::Kind::kRecord:
        return doc_->Concat({lead, Record(t, suffix)});
    }
    if (!suffix) return doc_->Concat({lead, body});
    return doc_->Concat({lead, body, suffix()});
  }

  int Record(const TypeExpr& t, const Suffix& suffix) {
    if (t.additional_attributes) {
      Refuse(t.span, "`additionalAttributes` of Cedar's JSON schema format cannot be formatted as text");
    }
    uint32_t close = t.span.end > 0 ? t.span.end - 1 : 0;
    std::vector<int> tail;
    if (t.attrs.empty()) {
      tail = {T("{"), doc_->Indent({Flush(close)}), doc_->SoftLine(), T("}")};
    } else {
      std::vector<int> inner;
      for (size_t i = 0; i < t.attrs.size(); ++i) {
        const AttrDecl& a = t.attrs[i];
        if (i > 0) inner.push_back(T(","));
        inner.push_back(Flush(a.annotations.empty() ? a.span.begin : a.annotations[0].span.begin));
        inner.push_back(doc_->Line());
        inner.push_back(Attribute(a));
      }
      inner.push_back(doc_->IfBreak(","));
      inner.push_back(Flush(close));
      tail = {T("{"), doc_->Indent(std::move(inner)), doc_->Line(), T("}")};
    }
    if (suffix) tail.push_back(suffix());
    return doc_->Group(std::move(tail));
  }

  int Attribute(const AttrDecl& a) {
    std::vector<int> kids;
    for (const Annotation& an : a.annotations) {
      kids.push_back(Flush(an.span.begin));
      kids.push_back(T(AnnotationText(an)));
      kids.push_back(doc_->HardLine());
    }
    kids.push_back(Flush(a.span.begin));
    kids.push_back(T(Cat(Written(a.name, a.span), a.required ? "" : "?", ": ")));
    kids.push_back(Type(a.type, nullptr));
    return doc_->Concat(std::move(kids));
  }

  int Common(const CommonTypeDecl& d) {
    return doc_->Concat({T("type "), Flush(d.span.begin), T(Cat(d.name, " = ")), Type(d.type, [&] { return T(";"); })});
  }

  int Entity(const EntityDecl& d) {
    std::vector<int> kids{T("entity "), Names(d.names, d.name_spans, false)};
    if (d.is_enum) {
      kids.push_back(T(" enum "));
      uint32_t close = d.choice_spans.empty() ? d.span.end : CloseOf(d.choice_spans.back().end);
      kids.push_back(List(
          d.choices.size(), [&](size_t i) { return d.choice_spans[i].begin; },
          [&](size_t i) { return schema::QuoteCedar(d.choices[i]); }, close));
      kids.push_back(T(";"));
      return doc_->Concat(std::move(kids));
    }
    if (!d.parents.empty()) {
      kids.push_back(T(" in "));
      kids.push_back(TypeList(d.parents, d.parent_spans));
    }
    // ` tags T;`, made after the shape.
    Suffix end = [&] {
      if (!d.tags.has_value()) return T(";");
      int tags = T(" tags ");
      return doc_->Concat({tags, Type(*d.tags, [&] { return T(";"); })});
    };
    if (!d.shape.has_value()) {
      kids.push_back(end());
    } else if (d.shape->kind == TypeExpr::Kind::kRecord) {
      kids.push_back(T(" "));
      kids.push_back(Type(*d.shape, end));
    } else {
      kids.push_back(T(" = "));
      kids.push_back(Type(*d.shape, end));
    }
    return doc_->Concat(std::move(kids));
  }

  std::string RefText(const ActionRef& r) const {
    if (r.type.empty()) return Written(r.id, r.span);
    return Cat(r.type, "::", schema::QuoteCedar(r.id));
  }

  int Action(const ActionDecl& d) {
    std::vector<int> head{T("action "), Names(d.names, d.name_spans, true)};
    if (!d.parents.empty()) {
      head.push_back(T(" in "));
      head.push_back(List(
          d.parents.size(), [&](size_t i) { return d.parents[i].span.begin; },
          [&](size_t i) { return RefText(d.parents[i]); }, CloseOf(d.parents.back().span.end)));
    }
    if (!d.has_applies_to) {
      head.push_back(T(";"));
      return doc_->Concat(std::move(head));
    }
    if (d.principals.empty() || d.resources.empty() || d.principal_spans.empty() ||
        d.resource_spans.empty()) {
      // Cedar's schema text has no way to write an `appliesTo` that lists no
      // principal or no resource type (the JSON format does).
      Refuse(d.span, "an `appliesTo` without principal or resource types cannot be written as schema text");
      head.push_back(T(";"));
      return doc_->Concat(std::move(head));
    }
    // The entries in the order of the source.
    struct Entry {
      uint32_t pos;
      char kind;
    };
    std::vector<Entry> entries{{d.principal_spans[0].begin, 'p'}, {d.resource_spans[0].begin, 'r'}};
    if (d.context.has_value()) entries.push_back({d.context->span.begin, 'c'});
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.pos < b.pos; });
    std::vector<int> inner;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i > 0) inner.push_back(T(","));
      inner.push_back(Flush(entries[i].pos));
      inner.push_back(doc_->Line());
      switch (entries[i].kind) {
        case 'p':
          inner.push_back(doc_->Concat({T("principal: "), TypeList(d.principals, d.principal_spans)}));
          break;
        case 'r':
          inner.push_back(doc_->Concat({T("resource: "), TypeList(d.resources, d.resource_spans)}));
          break;
        default:
          inner.push_back(doc_->Concat({T("context: "), Type(*d.context, nullptr)}));
          break;
      }
    }
    inner.push_back(doc_->IfBreak(","));
    // INVARIANT: an action's span ends with its `;`, after the `}`.
    inner.push_back(Flush(d.span.end > 0 ? d.span.end - 1 : 0));
    int applies = doc_->Group({T("{"), doc_->Indent(std::move(inner)), doc_->Line(), T("};")});
    head.push_back(doc_->Indent({doc_->Line(), T("appliesTo "), applies}));
    return doc_->Group(std::move(head));
  }

  std::string_view text_;
  const FormatOptions& options_;
  std::vector<SourceComment> comments_;
  size_t next_ = 0;  // the first comment not yet emitted
  Document* doc_ = nullptr;
  std::string out_;
  bool block_start_ = false;  // nothing written since a block's `{`
  std::string refusal_;
  Span refusal_span_;
};

// ---- the check of the output --------------------------------------------------
//
// The formatted text is read again and must hold what the input held: the
// same schema (spans aside) and the same comments in order.

bool SameAnnotations(const std::vector<Annotation>& a, const std::vector<Annotation>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].value != b[i].value || a[i].has_value != b[i].has_value) return false;
  }
  return true;
}

// Nesting is bounded by the parser's depth limit (SchemaOptions::max_nesting).
bool SameType(const TypeExpr& a, const TypeExpr& b) {
  if (a.kind != b.kind || a.hint != b.hint || a.name != b.name ||
      a.additional_attributes != b.additional_attributes || a.attrs.size() != b.attrs.size() ||
      (a.elem == nullptr) != (b.elem == nullptr)) {
    return false;
  }
  if (a.elem != nullptr && !SameType(*a.elem, *b.elem)) return false;
  for (size_t i = 0; i < a.attrs.size(); ++i) {
    const AttrDecl& x = a.attrs[i];
    const AttrDecl& y = b.attrs[i];
    if (x.name != y.name || x.required != y.required || !SameAnnotations(x.annotations, y.annotations) ||
        !SameType(x.type, y.type)) {
      return false;
    }
  }
  return true;
}

bool SameOptionalType(const std::optional<TypeExpr>& a, const std::optional<TypeExpr>& b) {
  return a.has_value() == b.has_value() && (!a.has_value() || SameType(*a, *b));
}

bool SameEntityDecl(const EntityDecl& a, const EntityDecl& b) {
  return a.names == b.names && a.parents == b.parents && SameOptionalType(a.shape, b.shape) &&
         SameOptionalType(a.tags, b.tags) && a.is_enum == b.is_enum && a.choices == b.choices &&
         SameAnnotations(a.annotations, b.annotations);
}

bool SameActionDecl(const ActionDecl& a, const ActionDecl& b) {
  if (a.names != b.names || a.parents.size() != b.parents.size() || a.has_applies_to != b.has_applies_to ||
      a.principals != b.principals || a.resources != b.resources || !SameOptionalType(a.context, b.context) ||
      !SameAnnotations(a.annotations, b.annotations)) {
    return false;
  }
  for (size_t i = 0; i < a.parents.size(); ++i) {
    if (a.parents[i].type != b.parents[i].type || a.parents[i].id != b.parents[i].id) return false;
  }
  return true;
}

// Where the reread schema differs from the input's, as a span of the input
// and a message; an empty message if it holds the same.
std::pair<Span, std::string> SchemaDifference(const SchemaAst& a, const SchemaAst& b) {
  const char* changed = "the formatted text would not hold this declaration as written";
  for (size_t n = 0; n < a.namespaces.size(); ++n) {
    const Namespace& x = a.namespaces[n];
    if (n >= b.namespaces.size()) return {x.span, "the formatted text would not hold this namespace"};
    const Namespace& y = b.namespaces[n];
    if (x.name != y.name || x.braced != y.braced || !SameAnnotations(x.annotations, y.annotations) ||
        x.order != y.order) {
      return {x.span, "the formatted text would not hold this namespace as written"};
    }
    for (size_t i = 0; i < x.common_types.size(); ++i) {
      const CommonTypeDecl& c = x.common_types[i];
      const CommonTypeDecl& d = y.common_types[i];
      if (c.name != d.name || !SameType(c.type, d.type) || !SameAnnotations(c.annotations, d.annotations)) {
        return {c.span, changed};
      }
    }
    for (size_t i = 0; i < x.entities.size(); ++i) {
      if (!SameEntityDecl(x.entities[i], y.entities[i])) return {x.entities[i].span, changed};
    }
    for (size_t i = 0; i < x.actions.size(); ++i) {
      if (!SameActionDecl(x.actions[i], y.actions[i])) return {x.actions[i].span, changed};
    }
  }
  if (b.namespaces.size() != a.namespaces.size()) {
    return {Span{}, "the formatted text would hold more namespaces than the input"};
  }
  return {Span{}, ""};
}

}  // namespace
}  // namespace internal

absl::StatusOr<std::string> FormatSchema(const SourceFile& source, const FormatOptions& options,
                                         Diagnostics* diagnostics) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  std::string_view text = source.text();
  if (text.size() > options.schema.max_source_bytes) {
    diags->Error(internal::codes::CH0412, Span{0, 1},
                 internal::Cat("schema is ", text.size(), " bytes, more than the limit of ",
                               options.schema.max_source_bytes));
    return absl::InvalidArgumentError(diags->FirstErrorLine(source, before));
  }
  size_t bad = internal::FindInvalidUtf8(text);
  if (bad != std::string_view::npos) {
    diags->Error(internal::codes::CH0402, Span{static_cast<uint32_t>(bad), static_cast<uint32_t>(bad + 1)},
                 "schema text is not valid UTF-8");
    return absl::InvalidArgumentError(diags->FirstErrorLine(source, before));
  }
  if (internal::json::StartsWithObject(text)) {
    return absl::InvalidArgumentError(internal::Cat(
        source.name(), ": Cedar's JSON schema format is not formatted (`charter fmt` formats schema text)"));
  }
  internal::schema::SchemaAst ast = internal::schema::ParseSchemaText(source, options.schema, diags);
  if (std::string error = diags->FirstErrorLine(source, before); !error.empty()) {
    return absl::InvalidArgumentError(error);
  }
  internal::SchemaPrinter printer(source, options);
  std::string out = printer.Print(ast);
  auto refuse = [&](Span span, const std::string& message, std::string help) {
    diags->Error(internal::codes::CH0900, span, internal::Cat(message, "; the file is left as it is"),
                 std::move(help));
    return absl::InvalidArgumentError(diags->FirstErrorLine(source, before));
  };
  const char* fault = "this is a fault of the formatter: please report it with the file";
  if (!printer.refusal().empty()) return refuse(printer.refusal_span(), printer.refusal(), fault);
  // Text already in canonical layout reads back as it did.
  if (out == text) return out;
  SourceFile again(source.name(), out);
  Diagnostics again_diagnostics;
  internal::schema::SchemaAst reread =
      internal::schema::ParseSchemaText(again, options.schema, &again_diagnostics);
  if (std::string error = again_diagnostics.FirstErrorLine(again); !error.empty()) {
    return refuse(Span{}, internal::Cat("the formatted text would not read back (", error, ")"), fault);
  }
  auto [span, difference] = internal::SchemaDifference(ast, reread);
  if (difference.empty()) std::tie(span, difference) = internal::CommentDifference(text, out);
  if (!difference.empty()) return refuse(span, difference, fault);
  return out;
}

}  // namespace charter
