// A Kubernetes object wrapped as the AdmissionReview (admission.k8s.io/v1)
// that the apiserver sends a validating webhook for its CREATE, so that
// `charter admit` decides a plain object with the server's mapping:
//
//   ObjectRef ref = {"batch", "v1", "Job", "train", "team-a"};
//   std::string review = CreateReviewFor(object_json, ref, Requester{}, ObjectUid(object_json, 0));
//   DecideReview(ReviewKind::kAdmission, review, ...);
//
// The fields follow k8s.io/api/admission/v1's AdmissionRequest: uid; kind,
// requestKind (group, version, kind); resource, requestResource (group,
// version, resource: the kind in lower case and plural, as the apiserver's
// REST mapping names the built-in kinds and most others); name and
// namespace (metadata's); operation CREATE; userInfo; object; oldObject
// null; dryRun false; options a CreateOptions.
#ifndef CHARTER_SERVER_OBJECT_REVIEW_H_
#define CHARTER_SERVER_OBJECT_REVIEW_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace charter::server {

// Who creates the object: the request's userInfo.
struct Requester {
  // The user `kubectl` uses with the kubeconfig `kubeadm` writes for the
  // cluster's administrator.
  std::string username = "kubernetes-admin";
  std::vector<std::string> groups = {"system:masters", "system:authenticated"};
};

struct ObjectRef {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string kind;     // "Pod"
  std::string name, namespace_name;
};

// The resource the apiserver names a kind by: "Pod" -> "pods", "Ingress" ->
// "ingresses", "NetworkPolicy" -> "networkpolicies".
std::string ResourceOf(std::string_view kind);

// A uid for the review of the object `json`, the `index`-th of its input:
// the form of a UUID, derived from both, so that the same input gets the
// same uids on every run.
std::string ObjectUid(std::string_view json, size_t index);

// The AdmissionReview of the CREATE of `object_json` (a JSON object,
// embedded as it is) by `who`.
std::string CreateReviewFor(std::string_view object_json, const ObjectRef& ref, const Requester& who,
                            std::string_view uid);

}  // namespace charter::server

#endif  // CHARTER_SERVER_OBJECT_REVIEW_H_
