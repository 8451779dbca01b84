// schema_tool: a test-only command line over the schema API, for the
// differential validation campaign and for trying things by hand.
//
//   schema_tool to-json SCHEMA       prints the schema in the JSON format
//   schema_tool to-cedar SCHEMA      prints the schema in Cedar's text format
//   schema_tool validate SCHEMA POLICIES
//                                    prints every diagnostic; exit 1 on errors
//   schema_tool batch                reads JSON lines {"schema": S, "policies": P}
//                                    (and optionally "links": L, template links in
//                                    the --template-linked JSON form, as a string)
//                                    and answers each with one JSON line
//                                    {"schema_ok": B, "valid": B, "errors": [...],
//                                     "warnings": [...]}, plus "link_error": M when
//                                    the links cannot be read or linked (given even
//                                    when the schema is refused)
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "charter/compiler.h"
#include "charter/schema.h"
#include "json/json.h"
#include "policy_set/policy_set.h"

namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void AppendDiags(std::string* out, const charter::Diagnostics& d, charter::Severity sev) {
  out->append("[");
  bool first = true;
  for (const charter::Diagnostic& x : d.items()) {
    if (x.severity != sev) continue;
    out->append(first ? "" : ",");
    first = false;
    out->append("{\"code\":");
    charter::internal::json::AppendQuoted(out, x.code);
    out->append(",\"message\":");
    charter::internal::json::AppendQuoted(out, x.message);
    out->append(",\"begin\":" + std::to_string(x.span.begin) + ",\"end\":" +
                std::to_string(x.span.end) + "}");
  }
  out->append("]");
}

// Why the links do not link (unreadable, no such template, an id already
// taken, a slot without a value...), or "" when they do.
std::string LinkError(const std::string& policies, const std::string* links_json,
                      std::vector<charter::TemplateLink>* links) {
  if (links_json == nullptr) return "";
  absl::StatusOr<std::vector<charter::TemplateLink>> parsed = charter::ParseTemplateLinks(*links_json);
  if (!parsed.ok()) return std::string(parsed.status().message());
  *links = *std::move(parsed);
  charter::SourceFile psrc("policies", policies);
  std::unique_ptr<charter::internal::PolicySet> set =
      charter::internal::ReadPolicySet(psrc, *links, {}, nullptr);
  return set->linked.ok() ? "" : std::string(set->linked.message());
}

std::string Answer(const std::string& schema_text, const std::string& policies,
                   const std::string* links_json) {
  std::vector<charter::TemplateLink> links;
  std::string link_error = LinkError(policies, links_json, &links);
  std::string link_field;
  if (!link_error.empty()) {
    link_field = ",\"link_error\":";
    charter::internal::json::AppendQuoted(&link_field, link_error);
    links.clear();
  }
  charter::SourceFile ssrc("schema", schema_text);
  charter::Diagnostics sd;
  absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(ssrc, {}, &sd);
  std::string out;
  if (!schema.ok()) {
    out = "{\"schema_ok\":false,\"errors\":";
    AppendDiags(&out, sd, charter::Severity::kError);
    return out + link_field + "}";
  }
  charter::SourceFile psrc("policies", policies);
  charter::Diagnostics pd;
  absl::Status st = charter::Validate(*schema, psrc, links, {}, &pd);
  out = std::string("{\"schema_ok\":true,\"valid\":") + (st.ok() ? "true" : "false") + ",\"errors\":";
  AppendDiags(&out, pd, charter::Severity::kError);
  out.append(",\"warnings\":");
  AppendDiags(&out, pd, charter::Severity::kWarning);
  return out + link_field + "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if ((mode == "to-json" || mode == "to-cedar") && argc == 3) {
    charter::SourceFile src(argv[2], ReadFile(argv[2]));
    charter::Diagnostics d;
    absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(src, {}, &d);
    if (!schema.ok()) {
      std::cerr << d.Render(src);
      return 1;
    }
    std::cout << (mode == "to-json" ? schema->ToJson() : schema->ToCedar());
    return 0;
  }
  if (mode == "validate" && argc == 4) {
    charter::SourceFile ssrc(argv[2], ReadFile(argv[2]));
    charter::Diagnostics sd;
    absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(ssrc, {}, &sd);
    if (!schema.ok()) {
      std::cerr << sd.Render(ssrc);
      return 1;
    }
    charter::SourceFile psrc(argv[3], ReadFile(argv[3]));
    charter::Diagnostics pd;
    absl::Status st = charter::Validate(*schema, psrc, {}, &pd);
    std::cout << pd.Render(psrc);
    return st.ok() ? 0 : 1;
  }
  if (mode == "batch") {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      absl::StatusOr<charter::internal::json::Document> doc = charter::internal::json::Parse(line);
      if (!doc.ok()) {
        std::cout << "{\"input_error\":true}\n" << std::flush;
        continue;
      }
      const auto* s = doc->root().Find("schema");
      const auto* p = doc->root().Find("policies");
      if (s == nullptr || p == nullptr || !s->is_string() || !p->is_string()) {
        std::cout << "{\"input_error\":true}\n" << std::flush;
        continue;
      }
      const auto* l = doc->root().Find("links");
      if (l != nullptr && !l->is_string()) {
        std::cout << "{\"input_error\":true}\n" << std::flush;
        continue;
      }
      std::string links = l != nullptr ? std::string(l->as_string()) : "";
      std::cout << Answer(std::string(s->as_string()), std::string(p->as_string()),
                          l != nullptr ? &links : nullptr)
                << "\n"
                << std::flush;
    }
    return 0;
  }
  std::cerr << "usage: schema_tool to-json|to-cedar SCHEMA | validate SCHEMA POLICIES | batch\n";
  return 2;
}
