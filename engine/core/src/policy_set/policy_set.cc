// The front door: choose the format, parse, link the templates.
#include "policy_set/policy_set.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "json/json.h"
#include "policy_json/policy_json.h"
#include "syntax/parser.h"

namespace charter::internal {

std::unique_ptr<PolicySet> ReadPolicySet(const SourceFile& source,
                                         const std::vector<TemplateLink>& links,
                                         const CompileOptions& options, Diagnostics* diagnostics,
                                         PolicyFormats formats) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  auto set = std::make_unique<PolicySet>();
  if (json::StartsWithObject(source.text())) {
    set->format = PolicyFormat::kJson;
    if (formats == PolicyFormats::kTextOnly) return set;
  }
  set->ast = ReadPolicySource(source, options, diags, 0, &set->links);
  set->links.insert(set->links.end(), links.begin(), links.end());
  for (size_t i = before; i < diags->size(); ++i) {
    if (diags->items()[i].severity == Severity::kError) return set;
  }
  set->linked = LinkTemplates(set->ast, set->links, &set->instances);
  return set;
}

ast::PolicySet ReadPolicySource(const SourceFile& source, const CompileOptions& options, Diagnostics* diagnostics,
                                size_t first_index, std::vector<TemplateLink>* links) {
  if (json::StartsWithObject(source.text())) return ParsePolicySetJson(source, options, diagnostics, links);
  return ParsePolicySet(source, options, diagnostics, first_index);
}

absl::StatusOr<std::unique_ptr<PolicySet>> ReadLinkedPolicySet(
    const SourceFile& source, const std::vector<TemplateLink>& links,
    const CompileOptions& options, Diagnostics* diagnostics) {
  Diagnostics local;
  Diagnostics* diags = diagnostics != nullptr ? diagnostics : &local;
  size_t before = diags->size();
  std::unique_ptr<PolicySet> set = ReadPolicySet(source, links, options, diags);
  if (diags->size() > before) return absl::InvalidArgumentError(diags->FirstErrorLine(source, before));
  if (!set->linked.ok()) return set->linked;
  return set;
}

namespace {

size_t ErrorsSince(const Diagnostics& diags, size_t before) {
  size_t n = 0;
  for (size_t i = before; i < diags.size(); ++i) n += diags.items()[i].severity == Severity::kError;
  return n;
}

}  // namespace

bool SourcesRead::failed(const std::vector<Diagnostics>& diags) const {
  for (size_t i = 0; i < before.size(); ++i) {
    if (ErrorsSince(diags[i], before[i]) > 0) return true;
  }
  return false;
}

absl::Status SourcesRead::FirstError(const std::vector<SourceFile>& sources,
                                     const std::vector<Diagnostics>& diags) const {
  for (size_t i = 0; i < before.size(); ++i) {
    if (ErrorsSince(diags[i], before[i]) > 0) {
      return absl::InvalidArgumentError(diags[i].FirstErrorLine(sources[i], before[i]));
    }
  }
  return absl::OkStatus();
}

SourcesRead ReadPolicySources(const std::vector<SourceFile>& sources, const std::vector<TemplateLink>& links,
                              const CompileOptions& options, std::vector<Diagnostics>& diags,
                              const std::function<void(size_t, const ast::PolicySet&)>& checked) {
  if (diags.size() < sources.size()) diags.resize(sources.size());
  SourcesRead out;
  out.asts.resize(sources.size());
  size_t next_index = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    out.before.push_back(diags[i].size());
    out.asts[i] = ReadPolicySource(sources[i], options, &diags[i], next_index, &out.set->links);
    next_index += out.asts[i].policies.size();
    if (checked != nullptr && diags[i].size() == out.before[i]) checked(i, out.asts[i]);
  }
  // One policy set: ids are unique across the sources.
  absl::flat_hash_map<std::string, size_t> ids;
  for (size_t i = 0; i < sources.size(); ++i) {
    for (ast::Policy& p : out.asts[i].policies) {
      auto [it, inserted] = ids.try_emplace(p.id, i);
      if (!inserted) {
        diags[i].Error(codes::CH0125, p.span, Cat("duplicate policy id `", p.id, "`"),
                       Cat("`", p.id, "` is also a policy of ", sources[it->second].name(),
                           ": every policy's `@id` must be unique in the policy set"));
        continue;
      }
      p.source = static_cast<uint32_t>(i);
      out.set->ast.policies.push_back(std::move(p));
    }
    out.asts[i].policies.clear();
  }
  out.set->links.insert(out.set->links.end(), links.begin(), links.end());
  if (out.failed(diags)) return out;
  out.set->linked = LinkTemplates(out.set->ast, out.set->links, &out.set->instances);
  return out;
}

absl::StatusOr<std::unique_ptr<PolicySet>> ReadLinkedPolicySet(const std::vector<SourceFile>& sources,
                                                               const std::vector<TemplateLink>& links,
                                                               const CompileOptions& options) {
  std::vector<Diagnostics> diags;
  SourcesRead read = ReadPolicySources(sources, links, options, diags);
  if (absl::Status s = read.FirstError(sources, diags); !s.ok()) return s;
  if (!read.set->linked.ok()) return read.set->linked;
  return std::move(read.set);
}

absl::Status LinkTemplates(const ast::PolicySet& set, const std::vector<TemplateLink>& links,
                           std::vector<PolicyInstance>* out) {
  absl::flat_hash_set<std::string_view> ids;
  absl::flat_hash_map<std::string_view, const ast::Policy*> templates;
  for (const ast::Policy& p : set.policies) {
    ids.insert(p.id);
    if (p.is_template()) {
      templates[p.id] = &p;
    } else {
      out->push_back(PolicyInstance{p.id, &p, nullptr, {}, {}});
    }
  }
  for (const TemplateLink& link : links) {
    // "links.json:3:5: " when the link was read from a file.
    const std::string at = link.origin.empty() ? "" : Cat(link.origin, ": ");
    auto it = templates.find(link.template_id);
    if (it == templates.end()) {
      return absl::InvalidArgumentError(
          Cat(at, "link `", link.link_id, "`: there is no template `", link.template_id, "`"));
    }
    if (!ids.insert(link.link_id).second) {
      return absl::InvalidArgumentError(
          Cat(at, "link `", link.link_id, "`: the policy id `", link.link_id, "` is already taken"));
    }
    const ast::Policy& t = *it->second;
    PolicyInstance instance{link.link_id, &t, &link, {}, {}};
    const std::optional<EntityUid>* values[2] = {&link.principal, &link.resource};
    bool slots[2] = {t.principal.slot, t.resource.slot};
    ast::EntityRef* targets[2] = {&instance.principal_slot, &instance.resource_slot};
    const char* names[2] = {"?principal", "?resource"};
    for (int k = 0; k < 2; ++k) {
      if (slots[k] != values[k]->has_value()) {
        return absl::InvalidArgumentError(
            Cat(at, "link `", link.link_id, "`: template `", link.template_id, "` ",
                slots[k] ? "needs a value for `" : "has no slot `", names[k], "`"));
      }
      if (slots[k]) *targets[k] = ast::EntityRef{(*values[k])->type, (*values[k])->id, {}};
    }
    out->push_back(std::move(instance));
  }
  return absl::OkStatus();
}

}  // namespace charter::internal
