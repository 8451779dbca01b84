// Policy sets, entities and requests from files, with one-line-per-fault
// errors.
#include "load.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "charter_support/schema_files.h"
#include "files.h"
#include "report.h"

namespace charter::cli {
namespace {

// The same status with its message made one line that names `path`.
absl::Status Named(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), WithPath(path, OneLine(status.message())));
}

// A link that does not link is an error at the link, in its file.
bool AtALink(const std::vector<TemplateLink>& links, absl::string_view message) {
  for (const TemplateLink& link : links) {
    if (!link.origin.empty() && message.size() > link.origin.size() + 1 &&
        message.substr(0, link.origin.size()) == link.origin && message[link.origin.size()] == ':') {
      return true;
    }
  }
  return false;
}

}  // namespace

CLI::Option* AddPoliciesOption(CLI::App* app, std::vector<std::string>* policies, const std::string& what,
                               bool stdin_ok) {
  return app
      ->add_option("--policies", *policies,
                   std::string("Policy file (Cedar text or JSON, .charter), a directory (its .cedar and .charter "
                               "files, sorted)") +
                       (stdin_ok ? ", or - for stdin" : "") + "; give it again for more" + what)
      ->type_name("PATH")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

CLI::Option* AddSchemaOption(CLI::App* app, std::vector<std::string>* schemas, const std::string& help) {
  return app->add_option("--schema", *schemas, help + "; give it again for more files, read as one schema")
      ->type_name("FILE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

absl::StatusOr<std::vector<std::string>> ExpandPolicyPaths(const std::vector<std::string>& given,
                                                           bool files_apart) {
  std::vector<std::string> paths;
  bool stdin_given = false;
  for (const std::string& path : given) {
    if (path == kStdinPath) {
      if (stdin_given) {
        return absl::InvalidArgumentError("--policies: - (standard input) given twice; it can be read once");
      }
      stdin_given = true;
      paths.push_back(path);
      continue;
    }
    std::error_code error;
    if (!std::filesystem::is_directory(path, error)) {
      paths.push_back(path);  // read (or found missing) when it is compiled
      continue;
    }
    std::vector<std::string> found;
    for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(path, error)) {
      std::string ext = entry.path().extension().string();
      if ((ext == ".cedar" || ext == ".charter") && !entry.is_directory(error)) found.push_back(entry.path().string());
    }
    if (error) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read the directory: ", error.message()));
    if (found.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": a directory without a .cedar or .charter file"));
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  // Every policy of a file read twice would be a duplicate id: say what
  // happened instead. Files are compared by device and inode (a second name
  // counts), once each.
  std::map<std::pair<dev_t, ino_t>, size_t> seen;
  for (size_t i = 0; i < paths.size() && !files_apart; ++i) {
    struct stat st;
    if (paths[i] == kStdinPath || stat(paths[i].c_str(), &st) != 0) continue;  // a missing file is reported when read
    auto [it, added] = seen.emplace(std::make_pair(st.st_dev, st.st_ino), i);
    if (added) continue;
    const std::string& first = paths[it->second];
    return absl::InvalidArgumentError(
        WithPath(paths[i], absl::StrCat(paths[i] == first ? "" : absl::StrCat("the same file as ", first, ", "),
                                        "given twice to --policies; give each policy file once")));
  }
  return paths;
}

void AddPolicySourceOptions(CLI::App* app, PolicySource* source) {
  CLI::Option* policies = AddPoliciesOption(app, &source->policies);
  CLI::Option* bundle =
      app->add_option("--bundle", source->bundle, "Compiled bundle (from `charter build`)")
          ->type_name("FILE");
  policies->excludes(bundle);
  app->add_option("--template-linked", source->links,
                  "Template links for --policies: [{\"template_id\", \"link_id\", \"args\": {...}}]")
      ->type_name("FILE")
      ->needs(policies);
}

void RequirePolicySource(const PolicySource& source) {
  if (source.policies.empty() && source.bundle.empty()) {
    throw CLI::RequiredError("--policies or --bundle");
  }
}

absl::Status NamedUnlessAtALink(const std::string& path, const std::vector<TemplateLink>& links,
                                const absl::Status& status) {
  if (AtALink(links, status.message())) return absl::Status(status.code(), OneLine(status.message()));
  return Named(path, status);
}

absl::StatusOr<std::vector<TemplateLink>> LoadTemplateLinks(const std::string& path,
                                                            size_t max_bytes) {
  if (path.empty()) return std::vector<TemplateLink>();
  absl::StatusOr<std::string> json = ReadFile(path, max_bytes);
  if (!json.ok()) return json.status();
  absl::StatusOr<std::vector<TemplateLink>> parsed = ParseTemplateLinks(*json, path);
  if (!parsed.ok()) return Named(path, parsed.status());
  return parsed;
}

CompileOptions WithDeclarations(CompileOptions options) {
  if (options.declarations == nullptr) options.declarations = &schedule::Declarations();
  return options;
}

namespace {

// One diagnostic, one line: each rendered on its own so that its severity
// decides whether it is a warning (printed now) or an error (appended to
// *errors, a line each).
void ReportDiagnostics(const SourceFile& source, const Diagnostics& diagnostics, std::string* errors) {
  for (const Diagnostic& d : diagnostics.items()) {
    Diagnostics one;
    one.Add(d);
    std::string line = OneLine(one.RenderShort(source));
    if (d.severity == Severity::kWarning) {
      PrintWarning(line);
    } else {
      absl::StrAppend(errors, errors->empty() ? "" : "\n", line);
    }
  }
}

}  // namespace

absl::StatusOr<Bundle> CompilePolicySource(const SourceFile& source,
                                           const std::vector<TemplateLink>& links,
                                           const CompileOptions& options) {
  InputStage stage(std::string(source.name()), "compiling the policies");
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, links, WithDeclarations(options), &diagnostics);

  std::string errors;
  ReportDiagnostics(source, diagnostics, &errors);
  if (bundle.ok()) return bundle;
  if (errors.empty()) return NamedUnlessAtALink(std::string(source.name()), links, bundle.status());
  return absl::Status(bundle.status().code(), errors);
}

absl::StatusOr<Bundle> CompilePolicyFile(const std::string& path, const std::string& links_path,
                                         const CompileOptions& options,
                                         std::optional<SourceFile>* text) {
  absl::StatusOr<std::vector<TemplateLink>> links =
      LoadTemplateLinks(links_path, options.max_source_bytes);
  if (!links.ok()) return links.status();
  absl::StatusOr<std::string> read = ReadInput(path, options.max_source_bytes);
  if (!read.ok()) return read.status();
  SourceFile source(InputName(path), *std::move(read));
  absl::StatusOr<Bundle> bundle = CompilePolicySource(source, *links, options);
  if (text != nullptr) text->emplace(std::move(source));
  return bundle;
}

absl::StatusOr<std::vector<SourceFile>> ReadPolicyFiles(const std::vector<std::string>& given, size_t max_bytes) {
  absl::StatusOr<std::vector<std::string>> paths = ExpandPolicyPaths(given);
  if (!paths.ok()) return paths.status();
  if (paths->empty()) return absl::InvalidArgumentError("--policies: no policy file given");
  std::vector<SourceFile> sources;
  for (const std::string& path : *paths) {
    absl::StatusOr<std::string> read = ReadInput(path, max_bytes);
    if (!read.ok()) return read.status();
    sources.emplace_back(InputName(path), *std::move(read));
  }
  return sources;
}

absl::StatusOr<Bundle> CompilePolicySources(const std::vector<SourceFile>& sources,
                                            const std::vector<TemplateLink>& links, const CompileOptions& options) {
  if (sources.size() == 1) return CompilePolicySource(sources[0], links, options);
  std::vector<Diagnostics> diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(sources, links, WithDeclarations(options), &diagnostics);
  std::string errors;
  for (size_t i = 0; i < sources.size() && i < diagnostics.size(); ++i) {
    ReportDiagnostics(sources[i], diagnostics[i], &errors);
  }
  if (bundle.ok()) return bundle;
  if (errors.empty()) {
    return absl::Status(bundle.status().code(), OneLine(bundle.status().message()));
  }
  return absl::Status(bundle.status().code(), errors);
}

absl::StatusOr<Bundle> CompilePolicyFiles(const std::vector<std::string>& given, const std::string& links_path,
                                          const CompileOptions& options, std::optional<SourceFile>* text,
                                          std::vector<SourceFile>* texts) {
  absl::StatusOr<std::vector<std::string>> paths = ExpandPolicyPaths(given);
  if (!paths.ok()) return paths.status();
  if (paths->empty()) return absl::InvalidArgumentError("--policies: no policy file given");
  if (paths->size() == 1) {
    std::optional<SourceFile> one;
    absl::StatusOr<Bundle> bundle = CompilePolicyFile(paths->front(), links_path, options, &one);
    if (one.has_value() && texts != nullptr) texts->push_back(*one);
    if (text != nullptr) *text = std::move(one);
    return bundle;
  }
  absl::StatusOr<std::vector<TemplateLink>> links = LoadTemplateLinks(links_path, options.max_source_bytes);
  if (!links.ok()) return links.status();
  absl::StatusOr<std::vector<SourceFile>> sources = ReadPolicyFiles(*paths, options.max_source_bytes);
  if (!sources.ok()) return sources.status();
  absl::StatusOr<Bundle> bundle = CompilePolicySources(*sources, *links, options);
  if (texts != nullptr) *texts = *std::move(sources);
  return bundle;
}

absl::StatusOr<Engine> LoadEngineFrom(const std::string& bundle_path, const std::vector<std::string>& policies,
                                      const CompileOptions& options) {
  if (!bundle_path.empty()) {
    PolicySource source;
    source.bundle = bundle_path;
    return LoadEngine(source);
  }
  absl::StatusOr<Bundle> bundle = CompilePolicyFiles(policies, "", options);
  if (!bundle.ok()) return bundle.status();
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  if (!engine.ok()) {
    return absl::InternalError(absl::StrCat("internal error: the compiled bundle does not verify: ",
                                            OneLine(engine.status().message())));
  }
  return engine;
}

absl::StatusOr<Engine> LoadEngine(const PolicySource& source, std::optional<SourceFile>* text,
                                  std::vector<SourceFile>* texts) {
  if (!source.bundle.empty()) {
    const std::string& path = source.bundle;
    VerifyOptions options;
    if (absl::Status readable = CheckReadable(path); !readable.ok()) return readable;
    absl::StatusOr<Bundle> bundle = Bundle::FromFile(path, options.max_bundle_bytes);
    if (!bundle.ok()) return Named(path, bundle.status());
    absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle), options);
    if (!engine.ok()) return Named(path, engine.status());
    // The scheduling section is the scheduling library's to verify: it is
    // checked here, as the bundle's other tables are, before any command
    // uses the engine.
    if (absl::Status config = schedule::ReadConfiguration(*engine).status(); !config.ok()) return Named(path, config);
    return engine;
  }
  absl::StatusOr<Bundle> bundle = CompilePolicyFiles(source.policies, source.links, {}, text, texts);
  if (!bundle.ok()) return bundle.status();
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  if (!engine.ok()) {
    // The compiler's own output failed verification: a bug in Charter.
    return absl::InternalError(WithPath(
        source.policies.front(), absl::StrCat("internal error: the compiled bundle does not verify: ",
                           OneLine(engine.status().message()))));
  }
  return engine;
}

absl::StatusOr<Schema> LoadSchema(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path, size_t{16} << 20);
  if (!text.ok()) return text.status();
  SourceFile source(path, *std::move(text));
  InputStage stage(path, "loading the schema");
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(source, {}, &diagnostics);
  if (schema.ok()) return schema;
  std::string lines;
  for (const Diagnostic& d : diagnostics.items()) {
    Diagnostics one;
    one.Add(d);
    absl::StrAppend(&lines, lines.empty() ? "" : "\n", OneLine(one.RenderShort(source)));
  }
  return absl::InvalidArgumentError(lines);
}

absl::StatusOr<Schema> LoadSchemas(const std::vector<std::string>& paths) {
  if (paths.size() == 1) return LoadSchema(paths[0]);
  std::vector<SourceFile> files;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = ReadFile(path, size_t{16} << 20);
    if (!text.ok()) return text.status();
    files.emplace_back(path, *std::move(text));
  }
  InputStage stage(paths.front(), "loading the schemas");
  return support::ParseSchemaFiles(files);
}

absl::StatusOr<Entities> LoadEntities(const std::string& path, const Schema* schema) {
  EntitiesOptions options;
  absl::StatusOr<std::string> json = ReadFile(path, options.max_input_bytes);
  if (!json.ok()) return json.status();
  InputStage stage(path, "loading entities");
  absl::StatusOr<Entities> entities = schema != nullptr ? Entities::FromJson(*json, *schema, path, options)
                                                        : Entities::FromJson(*json, path, options);
  if (!entities.ok()) return Named(path, entities.status());
  return entities;
}

absl::StatusOr<Request> LoadRequest(const std::string& path, const Schema* schema) {
  absl::StatusOr<std::string> json = ReadFile(path, kMaxRequestBytes);
  if (!json.ok()) return json.status();
  InputStage stage(path, "loading the request");
  absl::StatusOr<Request> request =
      schema != nullptr ? Request::FromJson(*json, *schema, path) : Request::FromJson(*json, path);
  if (!request.ok()) return Named(path, request.status());
  return request;
}

absl::StatusOr<std::vector<Request>> LoadRequests(const std::string& path, const Schema* schema) {
  absl::StatusOr<std::string> json = ReadFile(path, kMaxRequestsBytes);
  if (!json.ok()) return json.status();
  InputStage stage(path, "loading the requests");
  absl::StatusOr<std::vector<Request>> requests =
      schema != nullptr ? Request::ArrayFromJson(*json, *schema, path) : Request::ArrayFromJson(*json, path);
  if (!requests.ok()) return Named(path, requests.status());
  return requests;
}

}  // namespace charter::cli
