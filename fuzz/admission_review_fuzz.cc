// libFuzzer target for `charter serve`'s mapping (server/admission_review.h): any input
// read as an AdmissionReview and as a SubjectAccessReview must map or fail
// cleanly, and what a review maps to must be what the library reads: the
// request JSON a Request, the entities JSON an entity store, the answers
// JSON, and the compact copy of the input (the decision log's) the same
// JSON again. The input read as Kubernetes objects (`charter admit`:
// charter::kueue::ReadObjectsAsJson, YAML or JSON) gives JSON objects of
// their kind, or fails naming the source; each wrapped as the review of its
// CREATE (object_review.h) is a well-formed AdmissionReview to the mapping.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>
#include <optional>

#include "charter/decision.h"
#include "charter/entities.h"
#include "charter/json.h"
#include "charter/kueue.h"
#include "charter/request.h"
#include "json_write.h"
#include "admission_review.h"
#include "object_review.h"

namespace {

void Check(bool ok, const char* what, std::string_view detail = "") {
  if (!ok) {
    std::fprintf(stderr, "admission_review_fuzz invariant failed: %s\n%.*s\n", what, static_cast<int>(detail.size()),
                 detail.data());
    std::abort();
  }
}

void CheckMapped(const charter::server::MappedReview& m, bool admission) {
  absl::StatusOr<charter::Request> request = charter::Request::FromJson(m.request_json);
  Check(request.ok(), "the mapped request does not read", m.request_json);
  std::string entities = "[" + m.principal_json + "," + m.entities_json + "]";
  absl::StatusOr<charter::Entities> store = charter::Entities::FromJson(entities);
  Check(store.ok(), "the mapped entities do not read", entities);
  charter::Decision d;
  d.reasons = {"p\n\"1\""};
  d.errors.push_back({"q", "message with \x01 control", {}});
  charter::server::AnswerOptions answers;
  answers.reasons = {{"p\n\"1\"", "why \"so\""}};
  std::string answer = admission ? charter::server::AdmissionAnswer(m, d, answers)
                                 : charter::server::AuthorizationAnswer(m, d, answers);
  Check(charter::JsonDocument::Parse(answer).ok(), "the answer is not JSON", answer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // One joined user and namespace (the configuration's `join`), so that
  // the principal's `governance` is written for the corpus's alice.
  static const charter::server::MappingOptions options = [] {
    charter::server::MappingOptions o;
    o.join.users["arn:aws:sts::111122223333:assumed-role/HyperPodTeamADataScientist/alice"] = {
        {"Governance::Member", "alice \"a\""}, "fuzz"};
    o.join.namespaces["hyperpod-ns-team-a"] = {{"Governance::Namespace", "team-a"}, "fuzz"};
    return o;
  }();
  if (auto m = charter::server::MapAdmissionReview(text, options); m.ok()) {
    if (m->refused.empty()) {
      CheckMapped(*m, true);
    } else {
      std::string answer = charter::server::AdmissionRefusal(*m, {});
      Check(charter::JsonDocument::Parse(answer).ok(), "the refusal is not JSON", answer);
    }
  }
  if (auto m = charter::server::MapSubjectAccessReview(text, options); m.ok()) CheckMapped(*m, false);
  charter::kueue::ReadOptions read;
  read.max_nodes = 20000;
  absl::StatusOr<std::vector<charter::kueue::ObjectJson>> objects = charter::kueue::ReadObjectsAsJson({"k", text}, read);
  if (!objects.ok()) {
    std::string_view m(objects.status().message().data(), objects.status().message().size());
    Check(m.substr(0, 2) == "k:", "an object reader's error names the source", m);
  } else {
    for (size_t i = 0; i < objects->size(); ++i) {
      const charter::kueue::ObjectJson& o = (*objects)[i];
      absl::StatusOr<charter::JsonDocument> object = charter::JsonDocument::Parse(o.json);
      Check(object.ok() && object->root().is_object(), "an object read is not a JSON object", o.json);
      std::optional<charter::JsonValue> kind = object->root().Find("kind");
      Check(kind && kind->is_string() && kind->as_string() == o.kind, "an object's JSON is not of its kind", o.json);
      charter::server::ObjectRef ref{o.group, o.version, o.kind, o.name, o.namespace_name};
      std::string review = charter::server::CreateReviewFor(o.json, ref, {}, charter::server::ObjectUid(o.json, i));
      if (auto m = charter::server::MapAdmissionReview(review, options); m.ok()) {
        if (m->refused.empty()) CheckMapped(*m, true);
      } else {
        std::string_view why(m.status().message().data(), m.status().message().size());
        Check(why.substr(0, 15) == "request.object.", "a wrapped object's review is refused for more than its object",
              why);
      }
    }
  }
  absl::StatusOr<charter::JsonDocument> doc = charter::JsonDocument::Parse(text);
  if (doc.ok()) {
    std::string compact;
    std::vector<std::string> mask = {"dryRun"};
    charter::server::AppendCompact(&compact, text, doc->root(), &mask);
    Check(compact.find('\n') == std::string::npos, "the compact copy has a newline", compact);
    Check(charter::JsonDocument::Parse(compact).ok(), "the compact copy is not JSON", compact);
  }
  return 0;
}
