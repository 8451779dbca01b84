// charter::Schema and charter::Validate: read, resolve, print, validate.
#include "charter/schema.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include <string_view>

#include "unwrap/unwrap.h"
#include "check/validator.h"
#include "common/diagnostic_codes.h"
#include "common/sha256.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "json/json.h"
#include "policy_set/policy_set.h"
#include "schema/schema_model.h"
#include "schema/schema_parse.h"

namespace charter {

namespace {

absl::Status FirstError(const SourceFile& source, const Diagnostics& diags, size_t before) {
  for (size_t i = before; i < diags.size(); ++i) {
    if (diags.items()[i].severity != Severity::kError) continue;
    Diagnostics first;
    first.Add(diags.items()[i]);
    std::string line = first.RenderShort(source);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return absl::InvalidArgumentError(line);
  }
  return absl::OkStatus();
}

}  // namespace

Schema::Schema(std::shared_ptr<const internal::SchemaData> data) : data_(std::move(data)) {}

absl::StatusOr<Schema> Schema::Parse(const SourceFile& source, const SchemaOptions& options,
                                     Diagnostics* diagnostics) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  std::string_view text = source.text();
  if (text.size() > options.max_source_bytes) {
    diags->Error(internal::codes::CH0412, Span{0, 1},
                 internal::Cat("schema is ", text.size(), " bytes, more than the limit of ",
                               options.max_source_bytes));
    return FirstError(source, *diags, before);
  }
  size_t bad = internal::FindInvalidUtf8(text);
  if (bad != std::string_view::npos) {
    diags->Error(internal::codes::CH0402, Span{static_cast<uint32_t>(bad), static_cast<uint32_t>(bad + 1)},
                 "schema text is not valid UTF-8");
    return FirstError(source, *diags, before);
  }
  bool json = internal::json::StartsWithObject(text);
  auto data = std::make_shared<internal::SchemaData>();
  data->source_name = source.name();
  data->ast = json ? internal::schema::ParseSchemaJson(source, options, diags)
                   : internal::schema::ParseSchemaText(source, options, diags);
  if (diags->size() == before) internal::Resolve(data->ast, options, &data->model, diags);
  if (diags->size() > before) {
    diags->Truncate(before + options.max_errors);
    return FirstError(source, *diags, before);
  }
  return Schema(std::move(data));
}

std::string Schema::ToCedar() const { return internal::schema::PrintSchemaText(data_->ast); }
std::string Schema::ToJson() const { return internal::schema::PrintSchemaJson(data_->ast); }

std::string Schema::Fingerprint() const {
  return internal::Cat("sha256:", internal::Sha256Hex(ToJson()));
}

std::vector<std::string> Schema::EntityTypes() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : data_->model.entity_types) out.push_back(name);
  return out;
}

std::vector<EntityUid> Schema::Actions() const {
  std::vector<EntityUid> out;
  for (const auto& [key, info] : data_->model.actions) out.push_back(EntityUid{key.type, key.id});
  return out;
}

absl::Status Validate(const Schema& schema, const SourceFile& policies,
                      const CompileOptions& options, Diagnostics* diagnostics) {
  return Validate(schema, policies, {}, options, diagnostics);
}

absl::Status Validate(const Schema& schema, const SourceFile& policies,
                      const std::vector<TemplateLink>& links, const CompileOptions& options,
                      Diagnostics* diagnostics) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  std::unique_ptr<internal::PolicySet> set = internal::ReadPolicySet(policies, links, options, diags);
  // The set holds the policies that parsed cleanly; they are validated even
  // when others did not parse, so that one run reports every fault.
  const internal::SchemaModel& model = internal::Unwrap::Model(schema);
  internal::ValidatePolicySet(model, set->ast, diags);
  internal::ValidateTemplateLinks(model, set->instances, diags);
  diags->Truncate(before + options.max_errors);
  absl::Status first = FirstError(policies, *diags, before);
  if (first.ok() && !set->linked.ok()) return set->linked;
  return first;
}

std::vector<ExpressionType> ExpressionTypes(const Schema& schema, const SourceFile& policies,
                                            const CompileOptions& options) {
  Diagnostics diags;
  std::unique_ptr<internal::PolicySet> set = internal::ReadPolicySet(policies, {}, options, &diags);
  std::vector<internal::TypedSpan> typed;
  internal::ValidatePolicySet(internal::Unwrap::Model(schema), set->ast, &diags, &typed);
  // The checker's own nodes are left out: the conditions joined with `&&`
  // (the policy's span), `unless` as a negation (the condition's), and a
  // scope as a test (`principal is X` and its `principal` share the scope's).
  std::set<std::pair<size_t, size_t>> made;
  for (const internal::ast::Policy& p : set->ast.policies) {
    made.insert({p.span.begin, p.span.end});
    for (const Span& s : {p.principal.span, p.action.span, p.resource.span}) made.insert({s.begin, s.end});
    for (const internal::ast::Condition& c : p.conditions) made.insert({c.span.begin, c.span.end});
  }
  std::map<std::pair<size_t, size_t>, std::vector<std::string>> by_span;
  for (internal::TypedSpan& t : typed) {
    if (made.count({t.span.begin, t.span.end}) != 0) continue;
    std::vector<std::string>& types = by_span[{t.span.begin, t.span.end}];
    if (std::find(types.begin(), types.end(), t.type) == types.end()) types.push_back(std::move(t.type));
  }
  std::vector<ExpressionType> out;
  for (auto& [span, types] : by_span) out.push_back(ExpressionType{span.first, span.second, std::move(types)});
  std::stable_sort(out.begin(), out.end(), [](const ExpressionType& a, const ExpressionType& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  return out;
}

}  // namespace charter
