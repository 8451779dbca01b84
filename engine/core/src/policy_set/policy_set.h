// The front door: policy text or Cedar's JSON policy format -> the AST of a
// policy set, with its templates linked. Every stage that reads policies
// (the compiler, the validator, the reference interpreter, explain and fmt)
// comes in here, so that the choice of format, the parse and the rules of
// linking are written once.
//
//   std::unique_ptr<PolicySet> set = ReadPolicySet(source, links, options, &diagnostics);
//   if (!diagnostics.has_errors() && set->linked.ok())
//     for (const PolicyInstance& p : set->instances) use(p);
//
// The format is chosen from the content: Cedar's JSON policy format is an
// object, and policy text never starts with `{`.
#ifndef CHARTER_POLICY_SET_POLICY_SET_H_
#define CHARTER_POLICY_SET_POLICY_SET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ast/ast.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"

namespace charter::internal {

// One policy as the authorizer sees it: a static policy, or a template with
// the values one link gives its slots.
struct PolicyInstance {
  std::string id;
  const ast::Policy* policy = nullptr;
  const TemplateLink* link = nullptr;   // for a linked template
  ast::EntityRef principal_slot;        // when policy->principal.slot
  ast::EntityRef resource_slot;         // when policy->resource.slot
};

enum class PolicyFormat : uint8_t { kText, kJson };

// Which formats a reader accepts. fmt formats only text: it needs to know
// that the input is JSON, not to read it.
enum class PolicyFormats : uint8_t { kTextAndJson, kTextOnly };

// A policy set as read: its AST and its instances, in the compiler's order
// (static policies in the order of the text, then one instance per link in
// the links' order), so that every stage lists policies alike.
struct PolicySet {
  PolicyFormat format = PolicyFormat::kText;
  ast::PolicySet ast;
  // The links of a JSON policy set ("templateLinks"), then the caller's.
  std::vector<TemplateLink> links;
  // INVARIANT: point into `ast` and `links`, so a PolicySet is never copied
  // or moved (it lives behind a unique_ptr).
  std::vector<PolicyInstance> instances;
  // OK, or InvalidArgument for the first link that does not fit its
  // template; `instances` then ends before that link.
  absl::Status linked;

  PolicySet() = default;
  PolicySet(const PolicySet&) = delete;
  PolicySet& operator=(const PolicySet&) = delete;
};

// Reads `source` in the format its content shows, adds `links` to those the
// source holds, and links the templates. Faults in the text go to
// `diagnostics`; the AST holds the policies that read cleanly, so that a
// validator can still look at them. The templates are linked only when the
// text has no error (else `instances` is empty and `linked` OK). With
// kTextOnly, JSON input is recognised (`format`) but not read.
// `diagnostics` may be null.
std::unique_ptr<PolicySet> ReadPolicySet(const SourceFile& source,
                                         const std::vector<TemplateLink>& links,
                                         const CompileOptions& options, Diagnostics* diagnostics,
                                         PolicyFormats formats = PolicyFormats::kTextAndJson);

// One source in the format its content shows, neither linked nor checked
// against other sources: its AST (policies without an `@id` numbered from
// `first_index`; in .charter text, its scheduling declarations too), and
// for Cedar's JSON policy format its `templateLinks`, added to *links.
ast::PolicySet ReadPolicySource(const SourceFile& source, const CompileOptions& options, Diagnostics* diagnostics,
                                size_t first_index, std::vector<TemplateLink>* links);

// ReadPolicySet for the stages that evaluate the set (the reference
// interpreter, explain): any fault is InvalidArgument, worded as the compiler
// words it: "file:line:col: message" of the first fault in the text, else the
// link that does not fit. `diagnostics` may be null.
absl::StatusOr<std::unique_ptr<PolicySet>> ReadLinkedPolicySet(
    const SourceFile& source, const std::vector<TemplateLink>& links,
    const CompileOptions& options, Diagnostics* diagnostics);

// Several sources as one policy set, as charter::Compile reads them: each
// source read alone (policies without an `@id` numbered across the
// sources), then `checked(i, ast)` (when given) on each source read without
// an error, then the policies together (each ast::Policy::source says which
// source it is in; an id taken twice is CH0125 in the later source), then,
// when no source has an error, the templates linked with `links`. Faults go
// to diags[i], which is resized to one Diagnostics a source; the sources'
// ASTs keep their declarations.
struct SourcesRead {
  std::vector<ast::PolicySet> asts;
  std::unique_ptr<PolicySet> set = std::make_unique<PolicySet>();
  std::vector<size_t> before;  // each source's diagnostics count before reading
  // Whether a source has an error.
  bool failed(const std::vector<Diagnostics>& diags) const;
  // The first error of any source, as "file:line:col: message"; OK if none.
  absl::Status FirstError(const std::vector<SourceFile>& sources, const std::vector<Diagnostics>& diags) const;
};
SourcesRead ReadPolicySources(const std::vector<SourceFile>& sources, const std::vector<TemplateLink>& links,
                              const CompileOptions& options, std::vector<Diagnostics>& diags,
                              const std::function<void(size_t, const ast::PolicySet&)>& checked = nullptr);

// ReadPolicySources for the stages that evaluate the set (explain): any
// fault is InvalidArgument, as ReadLinkedPolicySet says it.
absl::StatusOr<std::unique_ptr<PolicySet>> ReadLinkedPolicySet(const std::vector<SourceFile>& sources,
                                                               const std::vector<TemplateLink>& links,
                                                               const CompileOptions& options);

// Instances of `set`: each static policy, then each link's template with the
// link's values in its slots. Stops at the first link that names no
// template, takes an id already taken, or does not give exactly the
// template's slots, and returns that fault (`*out` then holds the instances
// before it). The instances point into `set` and `links`.
absl::Status LinkTemplates(const ast::PolicySet& set, const std::vector<TemplateLink>& links,
                           std::vector<PolicyInstance>* out);

}  // namespace charter::internal

#endif  // CHARTER_POLICY_SET_POLICY_SET_H_
