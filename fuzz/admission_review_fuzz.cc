// libFuzzer target for `charter serve`'s mapping (server/admission_review.h): any input
// read as an AdmissionReview and as a SubjectAccessReview must map or fail
// cleanly, and what a review maps to must be what the library reads: the
// request JSON a Request, the entities JSON an entity store, the answers
// JSON, and the compact copy of the input (the decision log's) the same
// JSON again. The decision-log line of a mapped review is one line of JSON
// that server/decision_log.h reads back to the same request and entities;
// any line of the input read as a decision-log line reads or fails with a
// fault at a column of line 1 (`charter diff --decision-log`).
// The input read as Kubernetes objects (`charter admit`:
// charter::kueue::ReadObjectsAsJson, YAML or JSON) gives JSON objects of
// their kind, or fails naming the source; each wrapped as the review of its
// CREATE (object_review.h) is a well-formed AdmissionReview to the mapping.
#include <algorithm>
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
#include "admission_review.h"
#include "decision_log.h"
#include "json_write.h"
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
  const std::string request_json = m.request_json();
  absl::StatusOr<charter::Request> request = charter::Request::FromJson(request_json);
  Check(request.ok(), "the mapped request does not read", request_json);
  std::string entities = "[" + m.principal_json() + "," + m.entities_json() + "]";
  absl::StatusOr<charter::Entities> store = charter::Entities::FromJson(entities);
  Check(store.ok(), "the mapped entities do not read", entities);
  // Built in code, the same request and the same entities as their JSON.
  absl::StatusOr<charter::Request> built_request =
      charter::Request::Create(m.principal, m.action, m.resource, m.context);
  Check(built_request.ok() && built_request->ContextToCedar() == request->ContextToCedar(),
        "the request built in code differs from its JSON", request_json);
  absl::StatusOr<charter::Entities> built = charter::Entities().Extend(m.entities);
  Check(built.ok() && built->size() == store->size(), "the entities built in code differ from their JSON", entities);
  for (const charter::EntityUid& uid : store->Uids()) {
    std::optional<charter::EntityInfo> a = store->Find(uid);
    std::optional<charter::EntityInfo> b = built->Find(uid);
    Check(a.has_value() && b.has_value() && a->attrs == b->attrs && a->tags == b->tags,
          "an entity built in code differs from its JSON", uid.ToString());
    std::vector<std::string> pa, pb;  // the parents, in any order
    for (const charter::EntityUid& q : a->parents) pa.push_back(q.ToString());
    for (const charter::EntityUid& q : b->parents) pb.push_back(q.ToString());
    std::sort(pa.begin(), pa.end());
    std::sort(pb.begin(), pb.end());
    Check(pa == pb, "an entity built in code has other parents than its JSON", uid.ToString());
  }
  charter::Decision d;
  d.reasons = {"p\n\"1\""};
  d.errors.push_back({"q", "message with \x01 control", {}});
  charter::server::AnswerOptions answers;
  answers.reasons = {{"p\n\"1\"", "why \"so\""}};
  std::string answer = admission ? charter::server::AdmissionAnswer(m, d, answers)
                                 : charter::server::AuthorizationAnswer(m, d, answers);
  Check(charter::JsonDocument::Parse(answer).ok(), "the answer is not JSON", answer);

  // The decision-log line, masking `dryRun`, read back.
  charter::server::DecisionLogEntry entry{admission ? "admission" : "authorization", m.uid, m.principal, m.action,
                                          m.resource, &d, charter::server::OutcomeOf(d, !admission),
                                          "sha256:00", 0.000041, request_json, entities};
  std::string line = charter::server::DecisionLogLine(entry, {"dryRun"});
  Check(!line.empty() && line.back() == '\n' && line.find('\n') == line.size() - 1, "the log line is not one line",
        line);
  line.pop_back();
  absl::StatusOr<charter::server::LoggedDecision> logged = charter::server::ReadDecisionLogLine(line);
  Check(logged.ok(), "the log line does not read back", line);
  Check(logged->decision == std::string(charter::server::OutcomeName(entry.outcome)) &&
            logged->reasons == d.reasons && logged->endpoint == entry.endpoint,
        "the log line reads back otherwise", line);
  Check(logged->request_begin != std::string_view::npos && logged->entities_begin != std::string_view::npos,
        "the log line lacks its request or entities", line);
  std::string_view logged_entities =
      std::string_view(line).substr(logged->entities_begin, logged->entities_end - logged->entities_begin);
  Check(charter::Entities::FromJson(logged_entities).ok(), "the logged entities do not read", line);
  if (logged->masked.empty()) {
    std::string_view logged_request =
        std::string_view(line).substr(logged->request_begin, logged->request_end - logged->request_begin);
    Check(charter::Request::FromJson(logged_request).ok(), "the logged request does not read", line);
  }
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
  // The input's first line as a decision-log line: read, or a fault at a
  // column of line 1.
  std::string_view first = text.substr(0, text.find('\n'));
  if (absl::StatusOr<charter::server::LoggedDecision> logged = charter::server::ReadDecisionLogLine(first);
      !logged.ok()) {
    std::string message(logged.status().message());
    size_t digits = message.size() > 2 ? message.find_first_not_of("0123456789", 2) : std::string::npos;
    Check(message.substr(0, 2) == "1:" && digits != std::string::npos && digits > 2 && message[digits] == ':',
          "a decision-log line's fault is not at 1:COL", message);
  } else if (logged->request_begin != std::string_view::npos) {
    Check(logged->request_end <= first.size() && first[logged->request_begin] == '{' &&
              first[logged->request_end - 1] == '}',
          "the request's place on the line is not an object", first);
  }
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
