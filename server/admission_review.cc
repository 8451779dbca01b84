// Reviews to requests, decisions to answers (admission_review.h). Every field read is
// checked for its JSON type, and every fault names the field by its path in
// the review ("request.userInfo.groups[2]: expected a string").
#include "admission_review.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter_support/quantity.h"
#include "charter_support/strings.h"
#include "charter/json.h"
#include "json_write.h"

namespace charter::server {
namespace {

using charter::JsonDocument;
using charter::JsonValue;

using support::Cat;
using support::CatAppend;

using support::S;

// A field of the review by its path ("request.object.spec.containers[2]"),
// written out only when a fault names it: reading a review builds no path
// text.
class Path {
 public:
  Path(const char* root) : text_(root) {}         // NOLINT: a literal path
  Path(std::string_view root) : text_(root) {}    // NOLINT
  // parent.member, parent[index], parent["key"]
  Path(const Path& parent, std::string_view member) : parent_(&parent), text_(member), kind_(kMember) {}
  Path(const Path& parent, size_t index) : parent_(&parent), index_(index), kind_(kIndex) {}
  static Path Key(const Path& parent, std::string_view key) {
    Path p(parent, key);
    p.kind_ = kKey;
    return p;
  }
  std::string Text() const {
    std::string out = parent_ != nullptr ? parent_->Text() : std::string();
    switch (kind_) {
      case kRoot: out.append(text_); break;
      case kMember: CatAppend(&out, ".", S(text_)); break;
      case kIndex: CatAppend(&out, "[", index_, "]"); break;
      case kKey: CatAppend(&out, "[", Quoted(text_), "]"); break;
    }
    return out;
  }

 private:
  enum Kind { kRoot, kMember, kIndex, kKey };
  const Path* parent_ = nullptr;
  std::string_view text_;
  size_t index_ = 0;
  Kind kind_ = kRoot;
};

absl::Status Invalid(const Path& path, std::string_view what) {
  return absl::InvalidArgumentError(Cat(path.Text(), ": ", S(what)));
}

// A well-formed object that asks for more than can be counted: OutOfRange,
// which the server answers as a denial (not as a malformed review), so that
// a webhook with `failurePolicy: Ignore` does not let it through either.
absl::Status TooMuch(const Path& path, std::string_view what) {
  return absl::OutOfRangeError(Cat(path.Text(), ": ", S(what)));
}

// The largest count or quantity a review may give, and the largest `gpus`.
constexpr int64_t kMaxCount = int64_t{1} << 31;

// Reads fields of a review, remembering the text the document was parsed
// from (numbers are read from it).
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  // The member `key` of `object` when it is present and not null.
  static std::optional<JsonValue> Get(const JsonValue& object, std::string_view key) {
    std::optional<JsonValue> v = object.Find(key);
    if (!v.has_value() || v->is_null()) return std::nullopt;
    return v;
  }

  // An optional string member: "" when absent or null.
  absl::StatusOr<std::string> String(const JsonValue& object, std::string_view key,
                                     const Path& path) const {
    std::optional<JsonValue> v = Get(object, key);
    if (!v.has_value()) return std::string();
    if (!v->is_string()) return Invalid(Path(path, key), "expected a string");
    return S(v->as_string());
  }

  absl::StatusOr<std::optional<JsonValue>> Object(const JsonValue& object, std::string_view key,
                                                  const Path& path) const {
    std::optional<JsonValue> v = Get(object, key);
    if (v.has_value() && !v->is_object()) {
      return Invalid(Path(path, key), "expected an object");
    }
    return v;
  }

  absl::StatusOr<bool> Bool(const JsonValue& object, std::string_view key, const Path& path) const {
    std::optional<JsonValue> v = Get(object, key);
    if (!v.has_value()) return false;
    if (!v->is_bool()) return Invalid(Path(path, key), "expected true or false");
    return v->as_bool();
  }

  // A count (parallelism, replicas, a pod set's count): a whole number from
  // 0 to kMaxCount, a JSON number or a string of digits.
  absl::StatusOr<int64_t> Count(const JsonValue& v, const Path& path) const {
    std::string_view digits;
    if (!Text(v, &digits)) return Invalid(path, "expected a whole number");
    int64_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    bool all_digits = !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
    if (all_digits && (ec == std::errc::result_out_of_range || (ec == std::errc() && value > kMaxCount))) {
      return TooMuch(path, Cat("`", S(digits), "` is not a whole number from 0 to ", kMaxCount));
    }
    if (ec != std::errc() || end != digits.data() + digits.size() || value < 0 || value > kMaxCount) {
      return Invalid(path, Cat("`", S(digits), "` is not a whole number from 0 to ", kMaxCount));
    }
    return value;
  }

  // An extended resource's quantity (`nvidia.com/gpu`), as Kubernetes reads
  // one: the quantity grammar ("8", "1k", "1e3", "2Ki"), a whole number
  // (its thousandths, rounded up, a multiple of 1000: Kubernetes refuses
  // "500m" for an extended resource) from 0 to kMaxCount.
  absl::StatusOr<int64_t> Quantity(const JsonValue& v, const Path& path) const {
    std::string_view text;
    if (!Text(v, &text)) return Invalid(path, "expected a quantity (\"8\", \"1k\")");
    int64_t milli = 0;
    switch (support::ParseQuantity(text, /*milli=*/true, &milli)) {
      case support::QuantityError::kOk:
        if (milli % 1000 != 0) return Invalid(path, Cat("`", S(text), "` is not a whole number of the resource"));
        if (milli / 1000 <= kMaxCount) return milli / 1000;
        [[fallthrough]];
      case support::QuantityError::kTooLarge:
        return TooMuch(path, Cat("`", S(text), "` is more than ", kMaxCount));
      case support::QuantityError::kNegative:
        return Invalid(path, Cat("`", S(text), "` is negative"));
      case support::QuantityError::kMalformed:
        break;
    }
    return Invalid(path, Cat("`", S(text), "` is not a quantity (\"8\", \"1k\", \"1e3\")"));
  }

 private:
  // A string's text, or a number's as written in the document.
  bool Text(const JsonValue& v, std::string_view* out) const {
    if (v.is_string()) {
      *out = v.as_string();
      return true;
    }
    if (!v.is_number()) return false;
    std::string_view rest = text_.substr(v.offset());
    *out = rest.substr(0, rest.find_first_not_of("0123456789-+.eE"));
    return true;
  }

  std::string_view text_;
};

// What the accelerators requested add up to, by the one sum and the one
// product below: each count and quantity is at most kMaxCount, and so is
// every total, so that no sum wraps (signed overflow) and a policy's
// arithmetic on `gpus` has room. A total beyond it refuses the review,
// naming where it was passed.
absl::StatusOr<int64_t> Total(int64_t a, int64_t b, bool product, const Path& path) {
  std::optional<int64_t> r = product ? support::CheckedMul(a, b) : support::CheckedAdd(a, b);
  if (!r.has_value() || *r > kMaxCount) {
    return TooMuch(path, Cat("the accelerators requested come to more than ", kMaxCount, " (", a,
                             product ? " × " : " + ", b, ")"));
  }
  return *r;
}

#define CHARTER_ASSIGN(lhs, expr)          \
  auto lhs##_or = (expr);                  \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = *std::move(lhs##_or)

using Fields = std::vector<std::pair<std::string, Value>>;

struct Principal {
  EntityUid uid;
  Entity entity;  // the principal
  Entity extra;   // its Kubernetes::Extra entity (userInfo.extra as tags)
  std::vector<EntityUid> joins;  // its groups, and its governance entity when joined
};

// userInfo (AdmissionReview) or spec (SubjectAccessReview): user names of
// service accounts are "system:serviceaccount:NAMESPACE:NAME".
absl::StatusOr<Principal> MapPrincipal(const Reader& r, const JsonValue& info, std::string_view user_key,
                                       const Path& path, const MappingOptions& options) {
  CHARTER_ASSIGN(username, r.String(info, user_key, path));
  if (username.empty()) return Invalid(Path(path, user_key), "missing: the review names no user");
  CHARTER_ASSIGN(uid, r.String(info, "uid", path));
  Principal p;
  Fields attrs;
  constexpr std::string_view kServiceAccount = "system:serviceaccount:";
  if (username.rfind(kServiceAccount, 0) == 0) {
    std::string_view rest = std::string_view(username).substr(kServiceAccount.size());
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size()) {
      return Invalid(Path(path, user_key),
                     Cat("`", username, "` is not system:serviceaccount:NAMESPACE:NAME"));
    }
    p.uid = {"Kubernetes::ServiceAccount", S(rest)};
    attrs.emplace_back("namespace", Value::String(S(rest.substr(0, colon))));
    attrs.emplace_back("name", Value::String(S(rest.substr(colon + 1))));
    attrs.emplace_back("uid", Value::String(uid));
  } else {
    p.uid = {"Kubernetes::User", username};
    attrs.emplace_back("name", Value::String(username));
    attrs.emplace_back("uid", Value::String(uid));
  }
  if (std::optional<JsonValue> groups = Reader::Get(info, "groups")) {
    const Path gpath(path, "groups");
    if (!groups->is_array()) return Invalid(gpath, "expected an array of strings");
    for (size_t i = 0; i < groups->size(); ++i) {
      JsonValue g = groups->at(i);
      if (!g.is_string()) return Invalid(Path(gpath, i), "expected a string");
      EntityUid group{"Kubernetes::Group", S(g.as_string())};
      p.entity.parents.push_back(group);
      p.joins.push_back(std::move(group));
    }
  }
  // userInfo.extra (what the authenticator adds: on EKS the IAM ARN and
  // session name) as the tags of a Kubernetes::Extra entity of the same id.
  Fields extra;
  if (std::optional<JsonValue> x = Reader::Get(info, "extra")) {
    const Path xpath(path, "extra");
    if (!x->is_object()) return Invalid(xpath, "expected an object of string arrays");
    for (size_t i = 0; i < x->size(); ++i) {
      JsonValue values = x->member(i);
      const Path vpath = Path::Key(xpath, x->key(i));
      if (values.is_null()) continue;
      if (!values.is_array()) return Invalid(vpath, "expected an array of strings");
      std::vector<Value> strings;
      strings.reserve(values.size());
      for (size_t j = 0; j < values.size(); ++j) {
        JsonValue v = values.at(j);
        if (!v.is_string()) return Invalid(Path(vpath, j), "expected a string");
        strings.push_back(Value::String(S(v.as_string())));
      }
      extra.emplace_back(S(x->key(i)), Value::Set(std::move(strings)));
    }
  }
  attrs.emplace_back("extra", Value::Entity({"Kubernetes::Extra", p.uid.id}));
  // The configuration's join (`join.users`): the user's governance entity,
  // which the server joins from its entity file like a group.
  if (auto it = options.join.users.find(username); it != options.join.users.end()) {
    const EntityUid& g = it->second.target;
    attrs.emplace_back("governance", Value::Entity(g));
    p.joins.push_back(g);
  }
  p.extra.uid = {"Kubernetes::Extra", p.uid.id};
  p.extra.tags = std::move(extra);
  p.entity.uid = p.uid;
  p.entity.attrs = std::move(attrs);
  return p;
}

// The accelerators a pod spec requests: the sum over its containers, or the
// largest init container's when that is more (as Kubernetes computes a pod's
// effective request). Requests, or limits where no request is given.
absl::StatusOr<int64_t> PodSpecGpus(const Reader& r, const JsonValue& spec, const Path& path,
                                    const MappingOptions& options) {
  auto containers_gpus = [&](std::string_view key, bool sum) -> absl::StatusOr<int64_t> {
    std::optional<JsonValue> list = Reader::Get(spec, key);
    if (!list.has_value()) return int64_t{0};
    const Path lpath(path, key);
    if (!list->is_array()) return Invalid(lpath, "expected an array");
    int64_t total = 0;
    for (size_t i = 0; i < list->size(); ++i) {
      JsonValue c = list->at(i);
      const Path cpath(lpath, i);
      if (!c.is_object()) return Invalid(cpath, "expected an object");
      CHARTER_ASSIGN(resources, r.Object(c, "resources", cpath));
      if (!resources.has_value()) continue;
      const Path rpath(cpath, "resources");
      CHARTER_ASSIGN(requests, r.Object(*resources, "requests", rpath));
      CHARTER_ASSIGN(limits, r.Object(*resources, "limits", rpath));
      const Path requests_path(rpath, "requests"), limits_path(rpath, "limits");
      int64_t here = 0;
      for (const std::string& name : options.accelerators) {
        std::optional<JsonValue> q;
        const Path* qpath = &requests_path;
        if (requests.has_value()) q = Reader::Get(*requests, name);
        if (!q.has_value() && limits.has_value()) q = Reader::Get(*limits, name), qpath = &limits_path;
        if (!q.has_value()) continue;
        const Path npath = Path::Key(*qpath, name);
        CHARTER_ASSIGN(n, r.Quantity(*q, npath));
        CHARTER_ASSIGN(sum_here, Total(here, n, false, npath));
        here = sum_here;
      }
      if (sum) {
        CHARTER_ASSIGN(sum_total, Total(total, here, false, cpath));
        total = sum_total;
      } else {
        total = std::max(total, here);
      }
    }
    return total;
  };
  CHARTER_ASSIGN(regular, containers_gpus("containers", true));
  CHARTER_ASSIGN(init, containers_gpus("initContainers", false));
  return std::max(regular, init);
}

// template.spec of a pod template member `key` of `parent`, times `count`.
absl::StatusOr<int64_t> TemplateGpus(const Reader& r, const JsonValue& holder, const Path& path,
                                     int64_t count, const MappingOptions& options) {
  CHARTER_ASSIGN(tmpl, r.Object(holder, "template", path));
  if (!tmpl.has_value()) return int64_t{0};
  const Path tpath(path, "template");
  CHARTER_ASSIGN(spec, r.Object(*tmpl, "spec", tpath));
  if (!spec.has_value()) return int64_t{0};
  CHARTER_ASSIGN(each, PodSpecGpus(r, *spec, Path(tpath, "spec"), options));
  return Total(each, count, true, path);
}

absl::StatusOr<int64_t> CountOr1(const Reader& r, const JsonValue& holder, std::string_view key,
                                 const Path& path) {
  std::optional<JsonValue> v = Reader::Get(holder, key);
  if (!v.has_value()) return int64_t{1};
  return r.Count(*v, Path(path, key));
}

struct ObjectFacts {
  int64_t gpus = 0;
  std::optional<std::string> queue, priority;
  bool controlled = false;
  std::vector<std::string> owners;  // "Kind/name"
  Fields labels;       // tags
  Fields annotations;  // the same, of the Kubernetes::Annotations entity
};

// What governance needs of an object (Pod, batch Job, PyTorchJob, Kueue
// Workload; for any other kind, a pod template under spec.template times
// spec.replicas, as Deployments and ReplicaSets have).
absl::StatusOr<ObjectFacts> ReadObject(const Reader& r, const JsonValue& object, const Path& path,
                                       std::string_view type, const MappingOptions& options) {
  ObjectFacts f;
  CHARTER_ASSIGN(metadata, r.Object(object, "metadata", path));
  const Path mpath(path, "metadata");
  if (metadata.has_value()) {
    CHARTER_ASSIGN(labels, r.Object(*metadata, "labels", mpath));
    if (labels.has_value()) {
      for (size_t i = 0; i < labels->size(); ++i) {
        JsonValue v = labels->member(i);
        if (!v.is_string()) return Invalid(Path::Key(Path(mpath, "labels"), labels->key(i)), "expected a string");
        f.labels.emplace_back(S(labels->key(i)), Value::String(S(v.as_string())));
        if (labels->key(i) == options.queue_label) f.queue = S(v.as_string());
        if (labels->key(i) == options.priority_label) f.priority = S(v.as_string());
      }
    }
    CHARTER_ASSIGN(annotations, r.Object(*metadata, "annotations", mpath));
    if (annotations.has_value()) {
      for (size_t i = 0; i < annotations->size(); ++i) {
        JsonValue v = annotations->member(i);
        if (!v.is_string()) {
          return Invalid(Path::Key(Path(mpath, "annotations"), annotations->key(i)), "expected a string");
        }
        f.annotations.emplace_back(S(annotations->key(i)), Value::String(S(v.as_string())));
      }
    }
    if (std::optional<JsonValue> owners = Reader::Get(*metadata, "ownerReferences")) {
      const Path opaths(mpath, "ownerReferences");
      if (!owners->is_array()) return Invalid(opaths, "expected an array");
      for (size_t i = 0; i < owners->size(); ++i) {
        JsonValue o = owners->at(i);
        const Path opath(opaths, i);
        if (!o.is_object()) return Invalid(opath, "expected an object");
        CHARTER_ASSIGN(kind, r.String(o, "kind", opath));
        CHARTER_ASSIGN(name, r.String(o, "name", opath));
        CHARTER_ASSIGN(controller, r.Bool(o, "controller", opath));
        f.owners.push_back(Cat(kind, "/", name));
        f.controlled = f.controlled || controller;
      }
    }
  }
  CHARTER_ASSIGN(spec, r.Object(object, "spec", path));
  if (!spec.has_value()) return f;
  const Path spath(path, "spec");
  if (type == "Kubernetes::Pod") {
    CHARTER_ASSIGN(g, PodSpecGpus(r, *spec, spath, options));
    f.gpus = g;
  } else if (type == "Kubernetes::Job") {
    CHARTER_ASSIGN(n, CountOr1(r, *spec, "parallelism", spath));
    CHARTER_ASSIGN(g, TemplateGpus(r, *spec, spath, n, options));
    f.gpus = g;
  } else if (type == "Kubernetes::PyTorchJob") {
    CHARTER_ASSIGN(replicas, r.Object(*spec, "pytorchReplicaSpecs", spath));
    if (replicas.has_value()) {
      const Path rspath(spath, "pytorchReplicaSpecs");
      if (replicas->size() > options.max_pod_templates) return Invalid(rspath, "too many replica types");
      for (size_t i = 0; i < replicas->size(); ++i) {
        JsonValue rs = replicas->member(i);
        const Path rpath(rspath, replicas->key(i));
        if (!rs.is_object()) return Invalid(rpath, "expected an object");
        CHARTER_ASSIGN(n, CountOr1(r, rs, "replicas", rpath));
        CHARTER_ASSIGN(g, TemplateGpus(r, rs, rpath, n, options));
        CHARTER_ASSIGN(sum, Total(f.gpus, g, false, rpath));
        f.gpus = sum;
      }
    }
  } else if (type == "Kubernetes::Workload") {
    CHARTER_ASSIGN(queue, r.String(*spec, "queueName", spath));
    if (!queue.empty()) f.queue = queue;
    CHARTER_ASSIGN(priority, r.String(*spec, "priorityClassName", spath));
    if (!priority.empty()) f.priority = priority;
    if (std::optional<JsonValue> sets = Reader::Get(*spec, "podSets")) {
      const Path sets_path(spath, "podSets");
      if (!sets->is_array()) return Invalid(sets_path, "expected an array");
      if (sets->size() > options.max_pod_templates) return Invalid(sets_path, "too many pod sets");
      for (size_t i = 0; i < sets->size(); ++i) {
        JsonValue ps = sets->at(i);
        const Path ppath(sets_path, i);
        if (!ps.is_object()) return Invalid(ppath, "expected an object");
        CHARTER_ASSIGN(n, CountOr1(r, ps, "count", ppath));
        CHARTER_ASSIGN(g, TemplateGpus(r, ps, ppath, n, options));
        CHARTER_ASSIGN(sum, Total(f.gpus, g, false, ppath));
        f.gpus = sum;
      }
    }
  } else {
    CHARTER_ASSIGN(n, CountOr1(r, *spec, "replicas", spath));
    CHARTER_ASSIGN(g, TemplateGpus(r, *spec, spath, n, options));
    f.gpus = g;
  }
  return f;
}

std::string_view EntityTypeFor(std::string_view group, std::string_view kind) {
  if (group.empty() && kind == "Pod") return "Kubernetes::Pod";
  if (group == "batch" && kind == "Job") return "Kubernetes::Job";
  if (group == "kubeflow.org" && kind == "PyTorchJob") return "Kubernetes::PyTorchJob";
  if (group == "kueue.x-k8s.io" && kind == "Workload") return "Kubernetes::Workload";
  return "Kubernetes::Object";
}

absl::StatusOr<JsonDocument> ParseBody(std::string_view body) {
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(body);
  if (!doc.ok()) return absl::InvalidArgumentError(Cat("malformed JSON: ", S(doc.status().message())));
  if (!doc->root().is_object()) return absl::InvalidArgumentError("expected a JSON object");
  return doc;
}

absl::Status CheckKind(const Reader& r, const JsonValue& root, std::string_view api_version,
                       std::string_view kind) {
  CHARTER_ASSIGN(got_kind, r.String(root, "kind", "review"));
  CHARTER_ASSIGN(got_version, r.String(root, "apiVersion", "review"));
  if (got_kind != kind || got_version != api_version) {
    return absl::InvalidArgumentError(
        Cat("expected a ", S(kind), " of ", S(api_version), ", got kind `", got_kind,
                     "` of apiVersion `", got_version, "`"));
  }
  return absl::OkStatus();
}

Value Ns(std::string_view ns) { return Value::Entity({"Kubernetes::Namespace", S(ns)}); }

// The `request` of an AdmissionReview of admission.k8s.io/v1, its uid read
// into `m`.
absl::StatusOr<JsonValue> AdmissionRequest(const Reader& r, const JsonValue& root, MappedReview* m) {
  if (absl::Status s = CheckKind(r, root, "admission.k8s.io/v1", "AdmissionReview"); !s.ok()) return s;
  CHARTER_ASSIGN(request, r.Object(root, "request", "review"));
  if (!request.has_value()) return Invalid("request", "missing: an AdmissionReview to decide has a request");
  CHARTER_ASSIGN(uid, r.String(*request, "uid", "request"));
  if (uid.empty()) return Invalid("request.uid", "missing");
  m->uid = uid;
  return *request;
}

}  // namespace

absl::StatusOr<MappedReview> MapAdmissionReview(std::string_view body, const MappingOptions& options) {
  CHARTER_ASSIGN(doc, ParseBody(body));
  Reader r(body);
  MappedReview m;
  CHARTER_ASSIGN(request, AdmissionRequest(r, doc.root(), &m));
  CHARTER_ASSIGN(operation, r.String(request, "operation", "request"));
  if (operation != "CREATE" && operation != "UPDATE" && operation != "DELETE" && operation != "CONNECT") {
    return Invalid("request.operation", Cat("`", operation, "` is not CREATE, UPDATE, DELETE or CONNECT"));
  }
  m.operation = operation;
  CHARTER_ASSIGN(kind, r.Object(request, "kind", "request"));
  if (!kind.has_value()) return Invalid("request.kind", "missing");
  CHARTER_ASSIGN(group, r.String(*kind, "group", "request.kind"));
  CHARTER_ASSIGN(kind_name, r.String(*kind, "kind", "request.kind"));
  if (kind_name.empty()) return Invalid("request.kind.kind", "missing");
  m.kind = kind_name;
  CHARTER_ASSIGN(name, r.String(request, "name", "request"));
  CHARTER_ASSIGN(ns, r.String(request, "namespace", "request"));
  CHARTER_ASSIGN(sub, r.String(request, "subResource", "request"));
  CHARTER_ASSIGN(dry_run, r.Bool(request, "dryRun", "request"));
  m.dry_run = dry_run;
  CHARTER_ASSIGN(user_info, r.Object(request, "userInfo", "request"));
  if (!user_info.has_value()) return Invalid("request.userInfo", "missing");
  CHARTER_ASSIGN(principal, MapPrincipal(r, *user_info, "username", "request.userInfo", options));
  CHARTER_ASSIGN(object, r.Object(request, "object", "request"));
  CHARTER_ASSIGN(old_object, r.Object(request, "oldObject", "request"));

  std::string_view type = EntityTypeFor(group, kind_name);
  // The object decided on: the new one, the old one for a DELETE; for
  // CONNECT (whose object is the connect options) and sub-resources other
  // than status, none: the resource is then known by its name alone.
  ObjectFacts facts;
  std::optional<JsonValue> subject = operation == "DELETE" ? old_object : object;
  if (operation == "CONNECT" || (!sub.empty() && sub != "status")) subject.reset();
  // An object that asks for more than can be counted (OutOfRange) is
  // denied, never wrapped: the review is mapped as far as its name, with
  // the reason in `refused`.
  auto refused = [&](const absl::Status& s) -> absl::StatusOr<MappedReview> {
    if (!absl::IsOutOfRange(s)) return s;
    m.refused = std::string(s.message());
    m.name = name;
    m.namespace_name = ns;
    m.principal = principal.uid;
    m.action = {"Kubernetes::Action", operation};
    m.resource = {S(type), ns.empty() ? name : Cat(ns, "/", name)};
    return m;
  };
  if (subject.has_value()) {
    absl::StatusOr<ObjectFacts> f = ReadObject(
        r, *subject, operation == "DELETE" ? "request.oldObject" : "request.object", type, options);
    if (!f.ok()) return refused(f.status());
    facts = *std::move(f);
    if (name.empty()) {
      // A CREATE with generateName has no name yet.
      if (std::optional<JsonValue> md = Reader::Get(*subject, "metadata"); md && md->is_object()) {
        CHARTER_ASSIGN(generate, r.String(*md, "generateName", "request.object.metadata"));
        name = generate;
      }
    }
  }
  m.name = name;
  m.namespace_name = ns;
  std::string id = ns.empty() ? name : Cat(ns, "/", name);
  m.resource = {S(type), id};
  Entity resource;
  resource.uid = m.resource;
  Fields& attrs = resource.attrs;
  attrs.reserve(12);
  attrs.emplace_back("name", Value::String(name));
  attrs.emplace_back("namespace", Value::String(ns));
  attrs.emplace_back("kind", Value::String(kind_name));
  attrs.emplace_back("apiGroup", Value::String(group));
  attrs.emplace_back("gpus", Value::Long(facts.gpus));
  attrs.emplace_back("controlled", Value::Bool(facts.controlled));
  std::vector<Value> owners;
  owners.reserve(facts.owners.size());
  for (std::string& o : facts.owners) owners.push_back(Value::String(std::move(o)));
  attrs.emplace_back("owners", Value::Set(std::move(owners)));
  if (facts.queue) attrs.emplace_back("queueName", Value::String(*facts.queue));
  if (facts.priority) attrs.emplace_back("priorityClass", Value::String(*facts.priority));
  attrs.emplace_back("annotations", Value::Entity({"Kubernetes::Annotations", id}));
  if (!ns.empty()) {
    attrs.emplace_back("ns", Ns(ns));
    resource.parents.push_back({"Kubernetes::Namespace", ns});
    m.joins.push_back({"Kubernetes::Namespace", ns});
  }
  resource.tags = std::move(facts.labels);
  Entity annotations;
  annotations.uid = {"Kubernetes::Annotations", id};
  annotations.tags = std::move(facts.annotations);

  Fields context;
  context.emplace_back("dryRun", Value::Bool(dry_run));
  context.emplace_back("subResource", Value::String(sub));
  if (operation == "UPDATE" && old_object.has_value()) {
    absl::StatusOr<ObjectFacts> old_or = ReadObject(r, *old_object, "request.oldObject", type, options);
    if (!old_or.ok()) return refused(old_or.status());
    const ObjectFacts& old = *old_or;
    Fields before;
    before.emplace_back("gpus", Value::Long(old.gpus));
    if (old.queue) before.emplace_back("queueName", Value::String(*old.queue));
    if (old.priority) before.emplace_back("priorityClass", Value::String(*old.priority));
    context.emplace_back("old", Value::Record(std::move(before)));
  }

  m.principal = principal.uid;
  m.action = {"Kubernetes::Action", operation};
  for (EntityUid& g : principal.joins) m.joins.push_back(std::move(g));
  m.entities.reserve(4);
  m.entities.push_back(std::move(principal.entity));
  m.entities.push_back(std::move(resource));
  m.entities.push_back(std::move(annotations));
  m.entities.push_back(std::move(principal.extra));
  m.context = Value::Record(std::move(context));
  return m;
}

absl::StatusOr<MappedReview> MapSubjectAccessReview(std::string_view body, const MappingOptions& options) {
  CHARTER_ASSIGN(doc, ParseBody(body));
  Reader r(body);
  JsonValue root = doc.root();
  if (absl::Status s = CheckKind(r, root, "authorization.k8s.io/v1", "SubjectAccessReview"); !s.ok()) return s;
  CHARTER_ASSIGN(spec, r.Object(root, "spec", "review"));
  if (!spec.has_value()) return Invalid("spec", "missing: a SubjectAccessReview to decide has a spec");
  MappedReview m;
  CHARTER_ASSIGN(principal, MapPrincipal(r, *spec, "user", "spec", options));
  CHARTER_ASSIGN(res, r.Object(*spec, "resourceAttributes", "spec"));
  CHARTER_ASSIGN(non_res, r.Object(*spec, "nonResourceAttributes", "spec"));
  Entity resource;
  if (res.has_value()) {
    std::string f[6];
    const char* keys[6] = {"verb", "group", "resource", "subresource", "namespace", "name"};
    for (int i = 0; i < 6; ++i) {
      CHARTER_ASSIGN(v, r.String(*res, keys[i], "spec.resourceAttributes"));
      f[i] = std::move(v);
    }
    if (f[0].empty()) return Invalid("spec.resourceAttributes.verb", "missing");
    if (f[2].empty()) return Invalid("spec.resourceAttributes.resource", "missing");
    m.operation = f[0];
    m.kind = f[2];
    m.namespace_name = f[4];
    m.name = f[5];
    std::string id = Cat(f[1], "/", f[2], f[3].empty() ? "" : "/", f[3], "/", f[4], "/", f[5]);
    m.resource = {"Kubernetes::Resource", id};
    resource.uid = m.resource;
    resource.attrs.emplace_back("apiGroup", Value::String(f[1]));
    resource.attrs.emplace_back("resource", Value::String(f[2]));
    resource.attrs.emplace_back("subresource", Value::String(f[3]));
    resource.attrs.emplace_back("namespace", Value::String(f[4]));
    resource.attrs.emplace_back("name", Value::String(f[5]));
    if (!f[4].empty()) {
      resource.attrs.emplace_back("ns", Ns(f[4]));
      resource.parents.push_back({"Kubernetes::Namespace", f[4]});
      m.joins.push_back({"Kubernetes::Namespace", f[4]});
    }
  } else if (non_res.has_value()) {
    CHARTER_ASSIGN(verb, r.String(*non_res, "verb", "spec.nonResourceAttributes"));
    CHARTER_ASSIGN(path, r.String(*non_res, "path", "spec.nonResourceAttributes"));
    if (verb.empty()) return Invalid("spec.nonResourceAttributes.verb", "missing");
    if (path.empty()) return Invalid("spec.nonResourceAttributes.path", "missing");
    m.operation = verb;
    m.kind = path;
    m.resource = {"Kubernetes::NonResourceURL", path};
    resource.uid = m.resource;
    resource.attrs.emplace_back("path", Value::String(path));
  } else {
    return Invalid("spec", "has neither resourceAttributes nor nonResourceAttributes");
  }
  m.principal = principal.uid;
  m.action = {"Kubernetes::Action", m.operation};
  for (EntityUid& g : principal.joins) m.joins.push_back(std::move(g));
  m.entities.reserve(3);
  m.entities.push_back(std::move(principal.entity));
  m.entities.push_back(std::move(resource));
  m.entities.push_back(std::move(principal.extra));
  m.context = Value::Record({});
  return m;
}

std::string MappedReview::principal_json() const { return entities.empty() ? "" : entities[0].ToJson(); }

std::string MappedReview::entities_json() const {
  std::string out;
  for (size_t i = 1; i < entities.size(); ++i) {
    if (i > 1) out.push_back(',');
    entities[i].AppendJson(&out);
  }
  return out;
}

std::string MappedReview::request_json() const {
  if (entities.empty()) return "";  // refused: not to be decided
  std::string out = Cat("{\"principal\":", UidJson(principal.type, principal.id),
                        ",\"action\":", UidJson(action.type, action.id),
                        ",\"resource\":", UidJson(resource.type, resource.id), ",\"context\":");
  context.AppendJson(&out);
  out.push_back('}');
  return out;
}

namespace {

std::string WhyFor(const AnswerOptions& options, const std::string& id) {
  for (const auto& [policy, why] : options.reasons) {
    if (policy == id) return why;
  }
  return "";
}

std::string Describe(const MappedReview& m) {
  std::string what = Cat(m.operation, " ", m.kind);
  if (!m.namespace_name.empty() || !m.name.empty()) {
    CatAppend(&what, " ", m.namespace_name, m.namespace_name.empty() ? "" : "/", m.name);
  }
  return Cat(what, " by ", m.principal.ToString());
}

// "denied by policy `a` (why); policy `b`" or "no policy permits it".
std::string Because(const MappedReview& m, const Decision& d, const AnswerOptions& options) {
  std::string out = Cat("charter: ", Describe(m), d.allowed ? " allowed" : " denied");
  if (d.reasons.empty()) return out + ": no policy permits it";
  CatAppend(&out, d.allowed ? " by " : ": forbidden by ");
  for (size_t i = 0; i < d.reasons.size(); ++i) {
    CatAppend(&out, i ? "; " : "", "policy `", d.reasons[i], "`");
    std::string why = WhyFor(options, d.reasons[i]);
    if (!why.empty()) CatAppend(&out, ": ", why);
  }
  return out;
}

std::string Ids(const std::vector<std::string>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) CatAppend(&out, i ? "," : "", ids[i]);
  return out;
}

// "charter: warn: CREATE Pod ns/name by ... would be denied: forbidden by
// policy `a` (why)" or "...: no policy permits it".
std::string WouldDeny(const MappedReview& m, const Unenforced& u, const AnswerOptions& options) {
  std::string out = Cat("charter: ", EnforcementName(u.mode), ": ", Describe(m), " would be denied: ");
  if (u.policy.empty()) return out + "no policy permits it";
  CatAppend(&out, "forbidden by policy `", u.policy, "`");
  std::string why = WhyFor(options, u.policy);
  if (!why.empty()) CatAppend(&out, ": ", why);
  return out;
}

}  // namespace

std::string AdmissionAnswer(const MappedReview& m, const Decision& d, const AnswerOptions& options,
                            const std::vector<Unenforced>& unenforced) {
  std::string out = Cat(
      "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":",
      Quoted(m.uid), ",\"allowed\":", d.allowed ? "true" : "false");
  if (!d.allowed) {
    CatAppend(&out, ",\"status\":{\"code\":403,\"reason\":\"Forbidden\",\"message\":",
                    Quoted(Because(m, d, options)), "}");
  }
  std::vector<std::string> warnings;
  for (const PolicyError& e : d.errors) {
    warnings.push_back(Cat("charter: policy `", e.policy_id, "` was skipped: ", e.message));
  }
  // A denied review says why already; the rollout's warnings are for what it let through.
  if (d.allowed) {
    for (const Unenforced& u : unenforced) {
      if (u.mode == Enforcement::kWarn) warnings.push_back(WouldDeny(m, u, options));
    }
  }
  if (!warnings.empty()) {
    out += ",\"warnings\":[";
    for (size_t i = 0; i < warnings.size(); ++i) CatAppend(&out, i ? "," : "", Quoted(warnings[i]));
    out += "]";
  }
  CatAppend(&out, ",\"auditAnnotations\":{\"decision\":", d.allowed ? "\"allow\"" : "\"deny\"",
                  ",\"policies\":", Quoted(Ids(d.reasons)));
  if (!unenforced.empty()) {
    // Each as "mode:policy", "mode:" for no policy permitting it.
    std::string would;
    for (size_t i = 0; i < unenforced.size(); ++i) {
      CatAppend(&would, i ? "," : "", EnforcementName(unenforced[i].mode), ":", unenforced[i].policy);
    }
    CatAppend(&out, ",\"wouldDeny\":", Quoted(would));
  }
  CatAppend(&out, ",\"bundle\":", Quoted(options.bundle_hash), "}}}");
  return out;
}

std::string AdmissionRefusal(const MappedReview& m, const AnswerOptions& options) {
  return Cat("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":",
             Quoted(m.uid), ",\"allowed\":false,\"status\":{\"code\":403,\"reason\":\"Forbidden\",\"message\":",
             Quoted(Cat("charter: denied: ", m.refused)), "},\"auditAnnotations\":{\"decision\":\"deny\",",
             "\"policies\":\"\",\"bundle\":", Quoted(options.bundle_hash), "}}}");
}

std::string AuthorizationAnswer(const MappedReview& m, const Decision& d, const AnswerOptions& options) {
  // A forbid among the determining policies denies; a default deny is no
  // opinion, so that the apiserver asks its next authorizer (RBAC).
  bool denied = ForbidDetermined(d);
  std::string reason = d.allowed || denied ? Because(m, d, options)
                                           : Cat("charter: no policy permits ", Describe(m));
  std::string out = Cat(
      "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"status\":{\"allowed\":",
      d.allowed ? "true" : "false", ",\"denied\":", denied ? "true" : "false", ",\"reason\":", Quoted(reason));
  if (!d.errors.empty()) {
    std::string errors;
    for (size_t i = 0; i < d.errors.size(); ++i) {
      CatAppend(&errors, i ? "; " : "", "policy `", d.errors[i].policy_id, "` was skipped: ", d.errors[i].message);
    }
    CatAppend(&out, ",\"evaluationError\":", Quoted(errors));
  }
  out += "}}";
  return out;
}

}  // namespace charter::server
