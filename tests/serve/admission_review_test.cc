// The mapping from Kubernetes reviews to Charter requests (server/admission_review.h):
// what each kind's `gpus` sums, names, principals, operations, and the
// errors a malformed review gets.
#include "admission_review.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace charter::server {
namespace {

std::string Admission(const std::string& operation, const std::string& group, const std::string& kind,
                      const std::string& object, const std::string& extra = "") {
  return absl::StrCat(
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",)",
      R"("kind":{"group":")", group, R"(","version":"v1","kind":")", kind, R"("},)",
      R"("name":"n","namespace":"hyperpod-ns-team-a","operation":")", operation, R"(",)",
      R"("userInfo":{"username":"alice","groups":["g1","g2"]},"object":)", object, extra, "}}");
}

std::string Gpu(int n) { return absl::StrCat(R"({"resources":{"requests":{"nvidia.com/gpu":")", n, R"("}}})"); }

MappedReview Map(const std::string& body) {
  absl::StatusOr<MappedReview> m = MapAdmissionReview(body, MappingOptions{});
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : MappedReview{};
}

TEST(ReviewTest, PodSumsContainersOrTheLargestInitContainer) {
  MappedReview m = Map(Admission("CREATE", "", "Pod",
                                 absl::StrCat(R"({"spec":{"containers":[)", Gpu(2), ",", Gpu(3),
                                              R"(],"initContainers":[)", Gpu(4), "]}}")));
  EXPECT_EQ(m.resource.type, "Kubernetes::Pod");
  EXPECT_EQ(m.resource.id, "hyperpod-ns-team-a/n");
  EXPECT_NE(m.entities_json().find(R"("gpus":5)"), std::string::npos) << m.entities_json();
  m = Map(Admission("CREATE", "", "Pod",
                    absl::StrCat(R"({"spec":{"containers":[)", Gpu(1), R"(],"initContainers":[)", Gpu(4), "]}}")));
  EXPECT_NE(m.entities_json().find(R"("gpus":4)"), std::string::npos) << m.entities_json();
}

TEST(ReviewTest, AJoinedUserNamesItsGovernanceEntity) {
  MappingOptions options;
  options.join.users["alice"] = {{"Governance::Member", "alice"}, "config.json:3:14"};
  absl::StatusOr<MappedReview> m = MapAdmissionReview(Admission("CREATE", "", "Pod", R"({"spec":{}})"), options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_NE(m->principal_json().find(R"("governance":{"__entity":{"type":"Governance::Member","id":"alice"}})"),
            std::string::npos)
      << m->principal_json();
  bool joined = false;
  for (const EntityUid& u : m->joins) joined = joined || (u.type == "Governance::Member" && u.id == "alice");
  EXPECT_TRUE(joined) << "the member is joined from the entity file like a group";
  // Another user has no `governance`.
  options.join.users.clear();
  options.join.users["bob"] = {{"Governance::Member", "bob"}, "config.json:3:14"};
  m = MapAdmissionReview(Admission("CREATE", "", "Pod", R"({"spec":{}})"), options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->principal_json().find("governance"), std::string::npos) << m->principal_json();
}

TEST(ReviewTest, LimitsCountWhereNoRequestIsGiven) {
  MappedReview m = Map(Admission("CREATE", "", "Pod",
                                 R"({"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":2}}}]}})"));
  EXPECT_NE(m.entities_json().find(R"("gpus":2)"), std::string::npos) << m.entities_json();
}

TEST(ReviewTest, JobTimesParallelism) {
  MappedReview m = Map(Admission("CREATE", "batch", "Job",
                                 absl::StrCat(R"({"spec":{"parallelism":3,"template":{"spec":{"containers":[)",
                                              Gpu(2), "]}}}}")));
  EXPECT_EQ(m.resource.type, "Kubernetes::Job");
  EXPECT_NE(m.entities_json().find(R"("gpus":6)"), std::string::npos) << m.entities_json();
}

TEST(ReviewTest, PyTorchJobSumsReplicaSpecsWithOneByDefault) {
  std::string spec = absl::StrCat(R"({"spec":{"pytorchReplicaSpecs":{"Master":{"template":{"spec":{"containers":[)",
                                  Gpu(8), R"(]}}},"Worker":{"replicas":3,"template":{"spec":{"containers":[)", Gpu(8),
                                  "]}}}}}}");
  MappedReview m = Map(Admission("CREATE", "kubeflow.org", "PyTorchJob", spec));
  EXPECT_EQ(m.resource.type, "Kubernetes::PyTorchJob");
  EXPECT_NE(m.entities_json().find(R"("gpus":32)"), std::string::npos) << m.entities_json();
}

TEST(ReviewTest, WorkloadSumsPodSetsAndReadsItsQueueAndPriority) {
  std::string spec = absl::StrCat(R"({"spec":{"queueName":"q","priorityClassName":"p","podSets":[)",
                                  R"({"count":2,"template":{"spec":{"containers":[)", Gpu(4), "]}}}]}}");
  MappedReview m = Map(Admission("CREATE", "kueue.x-k8s.io", "Workload", spec));
  EXPECT_EQ(m.resource.type, "Kubernetes::Workload");
  EXPECT_NE(m.entities_json().find(R"("gpus":8)"), std::string::npos);
  EXPECT_NE(m.entities_json().find(R"("queueName":"q")"), std::string::npos);
  EXPECT_NE(m.entities_json().find(R"("priorityClass":"p")"), std::string::npos);
}

TEST(ReviewTest, OtherKindsAreObjectsWithTheirTemplateTimesReplicas) {
  std::string spec = absl::StrCat(R"({"spec":{"replicas":2,"template":{"spec":{"containers":[)", Gpu(1), "]}}}}");
  MappedReview m = Map(Admission("CREATE", "apps", "Deployment", spec));
  EXPECT_EQ(m.resource.type, "Kubernetes::Object");
  EXPECT_NE(m.entities_json().find(R"("gpus":2)"), std::string::npos);
}

TEST(ReviewTest, LabelsAreTagsAndKueueLabelsAttributes) {
  MappedReview m = Map(Admission(
      "CREATE", "", "Pod",
      R"({"metadata":{"labels":{"kueue.x-k8s.io/queue-name":"lq","kueue.x-k8s.io/priority-class":"pc","a":"b"},)"
      R"("ownerReferences":[{"kind":"Job","name":"j","controller":true}]}})"));
  EXPECT_NE(m.entities_json().find(R"("queueName":"lq")"), std::string::npos);
  EXPECT_NE(m.entities_json().find(R"("priorityClass":"pc")"), std::string::npos);
  EXPECT_NE(m.entities_json().find(R"("tags":{"kueue.x-k8s.io/queue-name":"lq","kueue.x-k8s.io/priority-class":"pc","a":"b"})"),
            std::string::npos)
      << m.entities_json();
  EXPECT_NE(m.entities_json().find(R"("controlled":true,"owners":["Job/j"])"), std::string::npos) << m.entities_json();
}

TEST(ReviewTest, PrincipalsAndGroups) {
  MappedReview m = Map(Admission("CREATE", "", "Pod", "{}"));
  EXPECT_EQ(m.principal.type, "Kubernetes::User");
  EXPECT_EQ(m.principal.id, "alice");
  ASSERT_GE(m.joins.size(), 3u);
  EXPECT_EQ(m.joins[0].type, "Kubernetes::Namespace");
  EXPECT_EQ(m.joins[1].id, "g1");
  std::string sar = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{)"
                    R"("user":"system:serviceaccount:ns1:runner","resourceAttributes":{"verb":"delete","resource":"nodes","name":"x"}}})";
  absl::StatusOr<MappedReview> s = MapSubjectAccessReview(sar, MappingOptions{});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->principal.type, "Kubernetes::ServiceAccount");
  EXPECT_EQ(s->principal.id, "ns1:runner");
  EXPECT_EQ(s->action.id, "delete");
  EXPECT_EQ(s->resource.type, "Kubernetes::Resource");
  EXPECT_EQ(s->resource.id, "/nodes//x");
  EXPECT_NE(s->principal_json().find(R"("namespace":"ns1","name":"runner")"), std::string::npos);
}

TEST(ReviewTest, DeleteReadsTheOldObjectAndUpdateTheOldFields) {
  std::string old = R"(,"oldObject":{"metadata":{"labels":{"kueue.x-k8s.io/priority-class":"low"}},"spec":{"containers":[)" +
                    Gpu(2) + "]}}";
  MappedReview d = Map(Admission("DELETE", "", "Pod", "null", old));
  EXPECT_NE(d.entities_json().find(R"("gpus":2)"), std::string::npos) << d.entities_json();
  EXPECT_EQ(d.request_json().find(R"("old")"), std::string::npos);
  MappedReview u = Map(Admission("UPDATE", "", "Pod", "{}", old));
  EXPECT_NE(u.request_json().find(R"("old":{"gpus":2,"priorityClass":"low"})"), std::string::npos) << u.request_json();
}

TEST(ReviewTest, ConnectAndSubresourcesAreKnownByName) {
  MappedReview m = Map(Admission("CONNECT", "", "Pod", absl::StrCat(R"({"spec":{"containers":[)", Gpu(8), "]}}"),
                                 R"(,"subResource":"exec")"));
  EXPECT_NE(m.entities_json().find(R"("gpus":0)"), std::string::npos) << m.entities_json();
  EXPECT_NE(m.request_json().find(R"("subResource":"exec")"), std::string::npos);
}

TEST(ReviewTest, DryRunIsInTheContext) {
  MappedReview m = Map(Admission("CREATE", "", "Pod", "{}", R"(,"dryRun":true)"));
  EXPECT_TRUE(m.dry_run);
  EXPECT_NE(m.request_json().find(R"("dryRun":true)"), std::string::npos);
}

void ExpectError(const std::string& body, const std::string& message, bool admission = true) {
  absl::StatusOr<MappedReview> m =
      admission ? MapAdmissionReview(body, MappingOptions{}) : MapSubjectAccessReview(body, MappingOptions{});
  ASSERT_FALSE(m.ok()) << body;
  EXPECT_EQ(std::string(m.status().message()), message);
}

// An object that asks for more than can be counted maps, refused: the
// server denies it (AdmissionRefusal) instead of answering 400.
void ExpectRefused(const std::string& body, const std::string& message) {
  absl::StatusOr<MappedReview> m = MapAdmissionReview(body, MappingOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->refused, message);
  EXPECT_TRUE(m->request_json().empty()) << "a refused review is not decided";
}

TEST(ReviewTest, Errors) {
  ExpectError("[]", "expected a JSON object");
  ExpectError(R"({"apiVersion":"v1","kind":"Pod"})",
              "expected a AdmissionReview of admission.k8s.io/v1, got kind `Pod` of apiVersion `v1`");
  ExpectError(Admission("PATCH", "", "Pod", "{}"), "request.operation: `PATCH` is not CREATE, UPDATE, DELETE or CONNECT");
  ExpectError(Admission("CREATE", "", "Pod", R"({"spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":"-1"}}}]}})"),
              "request.object.spec.containers[0].resources.requests[\"nvidia.com/gpu\"]: `-1` is negative");
  ExpectError(Admission("CREATE", "", "Pod", R"({"metadata":{"labels":{"a":1}}})"),
              "request.object.metadata.labels[\"a\"]: expected a string");
  ExpectError(Admission("CREATE", "", "Pod", R"({"spec":{"containers":{}}})"), "request.object.spec.containers: expected an array");
  std::string sa = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"system:serviceaccount:x"}})";
  ExpectError(sa, "spec.user: `system:serviceaccount:x` is not system:serviceaccount:NAMESPACE:NAME", false);
  ExpectError(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"a"}})",
              "spec: has neither resourceAttributes nor nonResourceAttributes", false);
}

// Quantities of an extended resource in the forms Kubernetes accepts for
// one: whole numbers, however written.
TEST(ReviewTest, GpuQuantitiesAreReadInTheQuantityGrammar) {
  auto gpus = [](const std::string& quantity) {
    return Map(Admission("CREATE", "", "Pod",
                         absl::StrCat(R"({"spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":)",
                                      quantity, "}}}]}}")))
        .entities_json();
  };
  EXPECT_NE(gpus(R"("1k")").find(R"("gpus":1000,)"), std::string::npos);
  EXPECT_NE(gpus(R"("1e3")").find(R"("gpus":1000,)"), std::string::npos);
  EXPECT_NE(gpus(R"("2Ki")").find(R"("gpus":2048,)"), std::string::npos);
  EXPECT_NE(gpus(R"("1.5k")").find(R"("gpus":1500,)"), std::string::npos);
  EXPECT_NE(gpus(R"("8000m")").find(R"("gpus":8,)"), std::string::npos);
  EXPECT_NE(gpus("1e3").find(R"("gpus":1000,)"), std::string::npos) << "a JSON number in exponent form";
  EXPECT_NE(gpus(R"("2147483648")").find(R"("gpus":2147483648,)"), std::string::npos);
  // Malformed quantities are errors; too large ones are refused (denied).
  auto refused = [](const std::string& quantity, const std::string& why) {
    std::string body = Admission("CREATE", "", "Pod",
                                 absl::StrCat(R"({"spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":)",
                                              quantity, "}}}]}}"));
    std::string message =
        absl::StrCat("request.object.spec.containers[0].resources.requests[\"nvidia.com/gpu\"]: ", why);
    if (why.find("is more than") != std::string::npos) {
      ExpectRefused(body, message);
    } else {
      ExpectError(body, message);
    }
  };
  refused(R"("500m")", "`500m` is not a whole number of the resource");
  refused(R"("1.5")", "`1.5` is not a whole number of the resource");
  refused(R"("2147483649")", "`2147483649` is more than 2147483648");
  refused(R"("3Gi")", "`3Gi` is more than 2147483648");
  refused(R"("1e100")", "`1e100` is more than 2147483648");
  refused(R"("8 GPUs")", R"(`8 GPUs` is not a quantity ("8", "1k", "1e3"))");
  refused("true", R"(expected a quantity ("8", "1k"))");
}

// Counts times quantities, summed over containers and pod templates, never
// wrap: a total over 2^31 refuses the review, where 64-bit arithmetic
// wrapped to a negative count (4 × 2^31 × 2147483647 is 2^64 - 2^33) that
// no rule on `gpus` caught.
TEST(ReviewTest, GpuTotalsOver2To31AreRefusedNeverWrapped) {
  std::string big = R"({"resources":{"requests":{"nvidia.com/gpu":"2147483648"}}})";
  std::string four = absl::StrCat(big, ",", big, ",", big, ",", big);
  ExpectRefused(Admission("CREATE", "batch", "Job",
                        absl::StrCat(R"({"spec":{"parallelism":2147483647,"template":{"spec":{"containers":[)", four,
                                     "]}}}}")),
              "request.object.spec.template.spec.containers[1]: the accelerators requested come to more than "
              "2147483648 (2147483648 + 2147483648)");
  // One container of 2^31 GPUs is allowed; two pods of it are not.
  std::string one = absl::StrCat(R"({"spec":{"parallelism":2,"template":{"spec":{"containers":[)", big, "]}}}}");
  ExpectRefused(Admission("CREATE", "batch", "Job", one),
              "request.object.spec: the accelerators requested come to more than 2147483648 (2147483648 × 2)");
  // The same Job asking 8 GPUs in all counts 8.
  MappedReview m = Map(Admission(
      "CREATE", "batch", "Job",
      absl::StrCat(R"({"spec":{"parallelism":2,"template":{"spec":{"containers":[)", Gpu(2), ",", Gpu(2), "]}}}}")));
  EXPECT_NE(m.entities_json().find(R"("gpus":8,)"), std::string::npos) << m.entities_json();
  // Two accelerators of one container.
  MappingOptions two;
  two.accelerators = {"nvidia.com/gpu", "amd.com/gpu"};
  absl::StatusOr<MappedReview> both = MapAdmissionReview(
      Admission("CREATE", "", "Pod",
                R"({"spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":"2147483648","amd.com/gpu":"1"}}}]}})"),
      two);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->refused,
            "request.object.spec.containers[0].resources.requests[\"amd.com/gpu\"]: the accelerators requested come "
            "to more than 2147483648 (2147483648 + 1)");
  // PyTorchJob replicas, Workload pod sets, every `replicas` kind.
  std::string tmpl = absl::StrCat(R"("template":{"spec":{"containers":[)", Gpu(8), "]}}");
  ExpectRefused(Admission("CREATE", "kubeflow.org", "PyTorchJob",
                        absl::StrCat(R"({"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":2147483647,)", tmpl,
                                     "}}}}")),
              "request.object.spec.pytorchReplicaSpecs.Worker: the accelerators requested come to more than "
              "2147483648 (8 × 2147483647)");
  ExpectRefused(Admission("CREATE", "kubeflow.org", "PyTorchJob",
                        absl::StrCat(R"({"spec":{"pytorchReplicaSpecs":{"Master":{"replicas":268435456,)", tmpl,
                                     R"(},"Worker":{"replicas":1,)", tmpl, "}}}}")),
              "request.object.spec.pytorchReplicaSpecs.Worker: the accelerators requested come to more than "
              "2147483648 (2147483648 + 8)");
  ExpectRefused(Admission("CREATE", "kueue.x-k8s.io", "Workload",
                        absl::StrCat(R"({"spec":{"podSets":[{"count":268435456,)", tmpl, R"(},{"count":1,)", tmpl,
                                     "}]}}")),
              "request.object.spec.podSets[1]: the accelerators requested come to more than 2147483648 "
              "(2147483648 + 8)");
  ExpectRefused(Admission("CREATE", "apps", "Deployment",
                        absl::StrCat(R"({"spec":{"replicas":2147483647,)", tmpl, "}}")),
              "request.object.spec: the accelerators requested come to more than 2147483648 (8 × 2147483647)");
  // The old object of an UPDATE is read the same way.
  ExpectRefused(Admission("UPDATE", "apps", "Deployment", "{}",
                        absl::StrCat(R"(,"oldObject":{"spec":{"replicas":2147483647,)", tmpl, "}}")),
              "request.oldObject.spec: the accelerators requested come to more than 2147483648 (8 × 2147483647)");
}

TEST(ReviewTest, AnnotationsAreTheTagsOfAnAnnotationsEntity) {
  MappedReview m = Map(Admission(
      "CREATE", "", "Pod",
      R"({"metadata":{"labels":{"a":"b"},"annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"false"}}})"));
  EXPECT_NE(m.entities_json().find(
                R"("annotations":{"__entity":{"type":"Kubernetes::Annotations","id":"hyperpod-ns-team-a/n"}})"),
            std::string::npos)
      << m.entities_json();
  EXPECT_NE(m.entities_json().find(R"({"uid":{"type":"Kubernetes::Annotations","id":"hyperpod-ns-team-a/n"},)"
                                 R"("attrs":{},"parents":[],"tags":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"false"}})"),
            std::string::npos)
      << m.entities_json();
  // Labels stay the object's own tags; an object without annotations has an
  // Annotations entity without tags.
  EXPECT_NE(m.entities_json().find(R"("tags":{"a":"b"})"), std::string::npos) << m.entities_json();
  MappedReview bare = Map(Admission("CREATE", "", "Pod", "{}"));
  EXPECT_NE(bare.entities_json().find(R"({"uid":{"type":"Kubernetes::Annotations","id":"hyperpod-ns-team-a/n"},)"
                                    R"("attrs":{},"parents":[],"tags":{}})"),
            std::string::npos)
      << bare.entities_json();
}

TEST(ReviewTest, UserInfoExtraIsTheTagsOfAnExtraEntity) {
  std::string sar =
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"alice",)"
      R"("extra":{"sessionName":["auditor"],"arn":["arn:aws:sts::1:assumed-role/R/auditor"],"none":null},)"
      R"("nonResourceAttributes":{"verb":"get","path":"/healthz"}}})";
  absl::StatusOr<MappedReview> s = MapSubjectAccessReview(sar, MappingOptions{});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_NE(s->principal_json().find(R"("extra":{"__entity":{"type":"Kubernetes::Extra","id":"alice"}})"),
            std::string::npos)
      << s->principal_json();
  EXPECT_NE(s->entities_json().find(R"({"uid":{"type":"Kubernetes::Extra","id":"alice"},"attrs":{},"parents":[],)"
                                  R"("tags":{"sessionName":["auditor"],"arn":["arn:aws:sts::1:assumed-role/R/auditor"]}})"),
            std::string::npos)
      << s->entities_json();
  ExpectError(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"a",)"
              R"("extra":{"k":"v"},"nonResourceAttributes":{"verb":"get","path":"/"}}})",
              "spec.extra[\"k\"]: expected an array of strings", false);
  ExpectError(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"a",)"
              R"("extra":{"k":[1]},"nonResourceAttributes":{"verb":"get","path":"/"}}})",
              "spec.extra[\"k\"][0]: expected a string", false);
  ExpectError(Admission("CREATE", "", "Pod", R"({"metadata":{"annotations":{"a":true}}})"),
              "request.object.metadata.annotations[\"a\"]: expected a string");
}

}  // namespace
}  // namespace charter::server

namespace charter::server {
namespace {

// An object that asks for more than can be counted is a denial, not a
// malformed review: it maps as far as its name with the reason in
// `refused` (a malformed field stays an error), and the answer denies it
// with the mapping's words, so that a webhook registered with
// `failurePolicy: Ignore` does not let the wrapped Job through either.
TEST(ReviewTest, OverflowIsADenialNotAMalformedReview) {
  std::string big = R"({"resources":{"requests":{"nvidia.com/gpu":"2147483648"}}})";
  std::string job = Admission("CREATE", "batch", "Job",
                              absl::StrCat(R"({"spec":{"parallelism":2147483647,"template":{"spec":{"containers":[)",
                                           big, ",", big, ",", big, ",", big, "]}}}}"));
  absl::StatusOr<MappedReview> m = MapAdmissionReview(job, MappingOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->uid, "u1");
  EXPECT_EQ(m->principal.ToString(), R"(Kubernetes::User::"alice")");
  EXPECT_EQ(m->resource.ToString(), R"(Kubernetes::Job::"hyperpod-ns-team-a/n")");
  for (const char* count : {R"("parallelism":2147483649)", R"("parallelism":99999999999999999999999)"}) {
    absl::StatusOr<MappedReview> c = MapAdmissionReview(
        Admission("CREATE", "batch", "Job",
                  absl::StrCat(R"({"spec":{)", count, R"(,"template":{"spec":{"containers":[)", Gpu(1), "]}}}}")),
        MappingOptions{});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->refused.rfind("request.object.spec.parallelism: ", 0), 0u) << c->refused;
  }
  absl::StatusOr<MappedReview> negative = MapAdmissionReview(
      Admission("CREATE", "", "Pod", R"({"spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":"-1"}}}]}})"),
      MappingOptions{});
  ASSERT_FALSE(negative.ok());
  AnswerOptions answers;
  answers.bundle_hash = "sha256:x";
  EXPECT_EQ(AdmissionRefusal(*m, answers),
            R"x({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u1","allowed":false,)x"
            R"x("status":{"code":403,"reason":"Forbidden","message":"charter: denied: request.object.spec.template.spec.)x"
            R"x(containers[1]: the accelerators requested come to more than 2147483648 (2147483648 + 2147483648)"},)x"
            R"x("auditAnnotations":{"decision":"deny","policies":"","bundle":"sha256:x"}}})x");
}

}  // namespace
}  // namespace charter::server
