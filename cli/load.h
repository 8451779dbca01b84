// Loading what commands work on: policy sets (from policy text or from a
// compiled bundle), entities and requests. Every loader reads its file
// whole, hands it to the library, and on failure returns a status whose
// message holds one line per fault, each naming the file (and, for text,
// line:col), ready for PrintError (report.h).
#ifndef CHARTER_CLI_LOAD_H_
#define CHARTER_CLI_LOAD_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "charter/charter.h"
#include "charter/schema.h"

namespace charter::cli {

inline constexpr size_t kMaxRequestBytes = size_t{64} << 20;
inline constexpr size_t kMaxRequestsBytes = size_t{1} << 30;

// Where a command's policy set comes from: exactly one of the two is set.
struct PolicySource {
  std::vector<std::string> policies;  // --policies, as given (ExpandPolicyPaths), compiled on the fly
  std::string bundle;    // a bundle written by `charter build`
  std::string links;     // template links (Cedar CLI's --template-linked JSON), with `policies`
};

// Adds --policies (repeatable: AddPoliciesOption), --bundle (excluding each
// other) and --template-linked (with --policies) to `app`, filling *source.
void AddPolicySourceOptions(CLI::App* app, PolicySource* source);

// The option every command reads policies with: FILE, DIRECTORY or `-`,
// given again for more, one value an occurrence (so that it never takes a
// positional argument that follows it). `what` ends its help; without
// `stdin_ok` the help does not offer `-`.
CLI::Option* AddPoliciesOption(CLI::App* app, std::vector<std::string>* policies, const std::string& what = "",
                               bool stdin_ok = true);

// The option every command reads schemas with: a schema file, given again
// for more, read as one schema (LoadSchemas), one value an occurrence.
CLI::Option* AddSchemaOption(CLI::App* app, std::vector<std::string>* schemas, const std::string& help);

// The policy files that --policies values name, in order: a FILE as given;
// a DIRECTORY, its `.cedar` and `.charter` files sorted by name (not its
// subdirectories' files; a directory without one is an error); `-`,
// standard input (at most once). The same file named twice (as given, or
// through a directory) is refused, unless `files_apart` (check, which reads
// each file on its own): in one policy set every policy in it would be a
// duplicate.
absl::StatusOr<std::vector<std::string>> ExpandPolicyPaths(const std::vector<std::string>& given,
                                                           bool files_apart = false);

// For an app callback: throws CLI::RequiredError unless --policies or
// --bundle was given, so that it is reported like CLI11's own errors.
void RequirePolicySource(const PolicySource& source);

// Reads template links in the Cedar CLI's `--template-linked` JSON form
// (none for an empty path).
absl::StatusOr<std::vector<TemplateLink>> LoadTemplateLinks(const std::string& path,
                                                            size_t max_bytes);

// The status of a compilation that failed without a diagnostic, named by
// the policy file `path`, unless it is about one of the `links` and starts
// with the link's place in its file.
absl::Status NamedUnlessAtALink(const std::string& path, const std::vector<TemplateLink>& links,
                                const absl::Status& status);

// The options with the scheduling library's declarations compiler, unless
// they name one: every command compiles `.charter` declarations.
CompileOptions WithDeclarations(CompileOptions options);

// Compiles policy text already read. Warnings are printed on stderr as they
// are found; errors are returned, one diagnostic a line.
absl::StatusOr<Bundle> CompilePolicySource(const SourceFile& source,
                                           const std::vector<TemplateLink>& links,
                                           const CompileOptions& options = {});

// Reads ("-": standard input) and compiles a policy file, as CompilePolicySource.
// `links_path`, when not empty, names template links in the Cedar CLI's
// `--template-linked` JSON form. With `text`, the policy text read is kept
// there (for the positions of evaluation errors).
absl::StatusOr<Bundle> CompilePolicyFile(const std::string& path, const std::string& links_path = "",
                                         const CompileOptions& options = {},
                                         std::optional<SourceFile>* text = nullptr);

// Reads and compiles the policy files --policies values name
// (ExpandPolicyPaths: files, directories, `-`) into one bundle, as Compile()
// over several sources: one policy set, one scheduling configuration (one
// file is CompilePolicyFile). Warnings are printed on stderr; errors are
// returned, one diagnostic a line, each naming its file. `text` (one file)
// and `texts` (any number) keep the policy text read.
absl::StatusOr<Bundle> CompilePolicyFiles(const std::vector<std::string>& paths, const std::string& links_path = "",
                                          const CompileOptions& options = {},
                                          std::optional<SourceFile>* text = nullptr,
                                          std::vector<SourceFile>* texts = nullptr);

// Reads the policy files --policies values name (ExpandPolicyPaths: files,
// directories, `-`), each named as given (`<stdin>` for `-`).
absl::StatusOr<std::vector<SourceFile>> ReadPolicyFiles(const std::vector<std::string>& given, size_t max_bytes);

// Compiles policy files already read into one bundle, as CompilePolicyFiles
// does (one source is CompilePolicySource).
absl::StatusOr<Bundle> CompilePolicySources(const std::vector<SourceFile>& sources,
                                            const std::vector<TemplateLink>& links, const CompileOptions& options = {});

// Loads the bundle (when `bundle` is not empty) or compiles the policy
// files (with `options`: a schema, limits), and verifies the result into an
// Engine.
absl::StatusOr<Engine> LoadEngineFrom(const std::string& bundle, const std::vector<std::string>& policies,
                                      const CompileOptions& options = {});

// Compiles the policies or loads the bundle, and verifies it into an Engine.
// With `text` and --policies naming one file, the policy text is kept there;
// `texts` keeps the text of every file --policies names.
absl::StatusOr<Engine> LoadEngine(const PolicySource& source, std::optional<SourceFile>* text = nullptr,
                                  std::vector<SourceFile>* texts = nullptr);

// Reads a schema (Cedar schema text or JSON). Faults are returned one
// diagnostic a line.
absl::StatusOr<Schema> LoadSchema(const std::string& path);
// Several schema files read as one (their Cedar schema text joined, so that
// one may name the types of another: stdlib/governance.cedarschema and
// stdlib/kubernetes.cedarschema); a fault is reported in the file it is in.
// One file is LoadSchema.
absl::StatusOr<Schema> LoadSchemas(const std::vector<std::string>& paths);

// With a schema (not null), entities and requests are read as Cedar reads
// them with one: values for their declared types, everything checked
// against the schema (Entities::FromJson and Request::FromJson with a schema).
absl::StatusOr<Entities> LoadEntities(const std::string& path, const Schema* schema = nullptr);
absl::StatusOr<Request> LoadRequest(const std::string& path, const Schema* schema = nullptr);
absl::StatusOr<std::vector<Request>> LoadRequests(const std::string& path, const Schema* schema = nullptr);

}  // namespace charter::cli

#endif  // CHARTER_CLI_LOAD_H_
