// The compiler: policy text -> parse -> AST -> bytecode -> bundle.
//
//   charter::SourceFile source("policies.cedar", text);
//   charter::Diagnostics diagnostics;
//   absl::StatusOr<charter::Bundle> bundle =
//       charter::Compile(source, {}, &diagnostics);
//   if (!bundle.ok()) std::cerr << diagnostics.Render(source);
#ifndef CHARTER_COMPILER_H_
#define CHARTER_COMPILER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "charter/bundle.h"
#include "charter/diagnostics.h"
#include "charter/entities.h"
#include "charter/export.h"

namespace charter {

class Schema;
namespace internal {
struct DeclarationFile;  // ast/declarations.h
}  // namespace internal

// What compiles the declarations of `.charter` sources into a section of the
// bundle. The core compiles policies and keeps declarations as the parser
// read them (their shape only); a library above it gives their meaning. The
// scheduling library's is charter::schedule::Declarations() (charter/schedule.h),
// which compiles flavors, cohorts, queues and the rest into the bundle's
// `scheduling` section. Without one, a source that declares anything fails
// to compile (CH0809).
class DeclarationCompiler {
 public:
  virtual ~DeclarationCompiler() = default;
  // The name of the section it writes.
  virtual std::string_view section() const = 0;
  // Compiles the declarations of every source (each fault to that source's
  // diagnostics). Returns the section's bytes, or nullopt when the sources
  // declare nothing. Called only by Compile, with its own view of the
  // sources' declarations.
  virtual std::optional<std::string> Compile(const std::vector<internal::DeclarationFile>& files) const = 0;
};

// What a source is written in. Cedar text holds Cedar policies only, so
// that Cedar's own tools accept it; Charter text (`.charter` files) may also
// hold scheduling declarations (docs/scheduling.md).
enum class SourceLanguage : uint8_t {
  kAuto,     // Charter when the source's name ends in `.charter`, else Cedar
  kCedar,
  kCharter,
};

struct CompileOptions {
  SourceLanguage language = SourceLanguage::kAuto;
  size_t max_source_bytes = size_t{64} << 20;
  // Nesting of brackets, braces, parentheses and `if` in one policy; deeper
  // input is a diagnostic, never a stack overflow.
  int max_nesting = 64;
  // Tokens in one policy (or one expression), and in the whole text: the
  // scan before parsing refuses more (CH0005, CH0006), so that parsing
  // needs bounded memory (docs/diagnostics.md, "Input checks";
  // docs/performance.md, "Parsing memory").
  size_t max_policy_tokens = size_t{1} << 18;
  size_t max_tokens = size_t{1} << 22;
  // Depth of an expression tree. Left-leaning chains of `||`, `&&`,
  // arithmetic or attribute access count once, however long they are.
  int max_expression_depth = 1000;
  // Compilation stops collecting diagnostics after this many.
  size_t max_errors = 100;
  // With a schema (which must outlive the call), the policy set is first
  // validated against it (Cedar's strict mode, diagnostics CH05xx; any error
  // fails the compile) and then compiled into typed code that relies on the
  // types the validator proved. The bundle records the schema's fingerprint.
  // A typed bundle decides as Cedar does for entities and requests that
  // conform to the schema (ValidateEntities, ValidateRequest); see
  // docs/bundle.md, "Typed bundles".
  const Schema* schema = nullptr;
  // Limits of the bundle, so that whatever compiles also verifies: the
  // defaults are VerifyOptions' (Engine::Create refuses a bundle past them,
  // and `charter build` verifies what it wrote). Past one, compilation fails
  // with a diagnostic at the clause or policy that crosses it.
  size_t max_code_words = size_t{1} << 20;    // instructions in one policy (CH0202)
  size_t max_policies = 1'000'000;            // policies and template links (CH0203)
  size_t max_bundle_bytes = size_t{1} << 30;  // the bundle's size (CH0205)
  size_t max_bundle_tables = 10'000'000;      // FlatBuffers tables in the bundle (CH0205)
  // What compiles declarations (see DeclarationCompiler; it must outlive the
  // call). Null: a source that declares anything is CH0809.
  const DeclarationCompiler* declarations = nullptr;
};

// A template-linked policy: the template `template_id` with its slots bound,
// known by the policy id `link_id`.
struct TemplateLink {
  std::string template_id;
  std::string link_id;
  std::optional<EntityUid> principal;  // ?principal
  std::optional<EntityUid> resource;   // ?resource
  // Where the link was read, as `FILE:LINE:COL` of its object (set by
  // ParseTemplateLinks; empty for a link made in code). An error linking it
  // (no such template, an id already taken, a slot without a value) starts
  // with it.
  std::string origin = {};
};

// Reads links in the Cedar CLI's `--template-linked` JSON form:
//   [{"template_id": "t", "link_id": "l", "args": {"?principal": "User::\"alice\""}}]
// (slot values as `Type::"id"` strings or {"type", "id"} objects).
CHARTER_API absl::StatusOr<std::vector<TemplateLink>> ParseTemplateLinks(
    std::string_view json, std::string_view source_name = "links.json");

// Compiles a policy set, written in Cedar's policy text or in Cedar's JSON
// policy format (a JSON object: one policy, or {"staticPolicies",
// "templates", "templateLinks"}). Every fault in the text is added to `diagnostics`
// (which may be null); if there is any error the result is InvalidArgument
// whose message is the first diagnostic as "file:line:col: message".
CHARTER_API absl::StatusOr<Bundle> Compile(const SourceFile& source, const CompileOptions& options,
                                           Diagnostics* diagnostics);

// The same with template links. Templates themselves are not evaluated; each
// link is a policy. A link that names no template, leaves a slot unbound,
// binds a slot the template lacks, or reuses a policy id is an
// InvalidArgument error.
CHARTER_API absl::StatusOr<Bundle> Compile(const SourceFile& source,
                                           const std::vector<TemplateLink>& links,
                                           const CompileOptions& options, Diagnostics* diagnostics);

// Compiles several sources into one bundle: Cedar text, Cedar's JSON policy
// format, or Charter text (`.charter`, see SourceLanguage), whose policies
// form one policy set (ids unique across the sources; a policy without an
// `@id` is `policyN`, N counting across them) and whose declarations
// go to CompileOptions::declarations (the scheduling library's makes them
// one scheduling configuration, docs/scheduling.md, stored in the bundle's
// `scheduling` section: charter::schedule::ReadConfiguration). `diagnostics` (may be null) is
// resized to one Diagnostics a source, and the faults of sources[i] are
// added to (*diagnostics)[i]. With any error the result is InvalidArgument
// whose message is the first one as "file:line:col: message".
//
//   std::vector<charter::SourceFile> sources = {{"rules.cedar", a}, {"cluster.charter", b}};
//   std::vector<charter::Diagnostics> diagnostics;
//   absl::StatusOr<charter::Bundle> bundle = charter::Compile(sources, {}, {}, &diagnostics);
//   if (!bundle.ok()) for (size_t i = 0; i < sources.size(); ++i)
//     std::cerr << diagnostics[i].Render(sources[i]);
CHARTER_API absl::StatusOr<Bundle> Compile(const std::vector<SourceFile>& sources,
                                           const std::vector<TemplateLink>& links,
                                           const CompileOptions& options,
                                           std::vector<Diagnostics>* diagnostics);

}  // namespace charter

#endif  // CHARTER_COMPILER_H_
