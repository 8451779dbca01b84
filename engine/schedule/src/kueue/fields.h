// Reading the fields of one Kubernetes object with Kubernetes' own typing:
// every fault reads "FILE:LINE:COL: KIND NAME: message" and names the field
// by its path (`spec.preemption.withinClusterQueue`).
#ifndef CHARTER_KUEUE_FIELDS_H_
#define CHARTER_KUEUE_FIELDS_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/kueue.h"
#include "common/strings.h"
#include "kueue/document.h"

namespace charter::internal::kueue {

// Where something was read, for messages about it after reading.
struct Where {
  std::string source;
  uint32_t line = 1, col = 1;
  std::string object;  // "ClusterQueue team-a"
  std::string Message(std::string_view message) const {
    return object.empty() ? At(source, line, col, message) : At(source, line, col, Cat(object, ": ", message));
  }
};

class Fields {
 public:
  Fields(std::string source, std::string object) : source_(std::move(source)), object_(std::move(object)) {}

  const std::string& source() const { return source_; }
  const std::string& object() const { return object_; }
  void set_object(std::string object) { object_ = std::move(object); }
  Where At(const Node& n) const { return Where{source_, n.line, n.col, object_}; }

  absl::Status Fail(const Node& at, std::string_view message) const {
    return absl::InvalidArgumentError(At(at).Message(message));
  }
  absl::Status FailKey(const Node& map, std::string_view key, std::string_view message) const;

  // `n` is a map whose keys are all in `allowed`; `path` names it.
  absl::Status Check(const Node& n, std::string_view path, std::initializer_list<std::string_view> allowed) const;
  absl::Status Check(const Node& n, std::string_view path, const std::vector<std::string_view>& allowed) const;
  // A map or absent (null counts as absent); `path` names it.
  absl::StatusOr<const Node*> OptMap(const Node& parent, std::string_view key, std::string_view path) const;
  absl::StatusOr<const Node*> OptSeq(const Node& parent, std::string_view key, std::string_view path) const;
  // A string (absent or null: nullopt).
  absl::StatusOr<std::optional<std::string>> OptString(const Node& parent, std::string_view key,
                                                       std::string_view path) const;
  absl::StatusOr<std::optional<int64_t>> OptInt(const Node& parent, std::string_view key, std::string_view path,
                                                int64_t lo, int64_t hi) const;
  absl::StatusOr<std::optional<bool>> OptBool(const Node& parent, std::string_view key, std::string_view path) const;
  // One of `values` (absent or null: nullopt).
  absl::StatusOr<std::optional<std::string>> OptEnum(const Node& parent, std::string_view key, std::string_view path,
                                                     std::initializer_list<std::string_view> values) const;
  // A map of strings to strings (labels, annotations, nodeLabels), sorted.
  absl::Status StringMap(const Node& parent, std::string_view key, std::string_view path,
                         std::vector<std::pair<std::string, std::string>>* out) const;
  // A Kubernetes quantity for `resource` in the model's units (milli for cpu).
  absl::StatusOr<int64_t> Quantity(const Node& n, std::string_view resource, std::string_view path) const;
  // A fair-sharing weight: a non-negative quantity, 0 or above 10^-9.
  absl::StatusOr<double> Weight(const Node& n, std::string_view path) const;
  // A name Kueue's API requires to be a DNS subdomain (at most 253
  // characters of [a-z0-9.-], each dot-separated part starting and ending
  // with a letter or digit).
  absl::Status DnsSubdomain(const Node& n, std::string_view value, std::string_view path) const;

 private:
  std::string source_;
  std::string object_;
};

// Whether `name` is a Kubernetes qualified name ([prefix/]name), as a
// resource name or a label key must be.
bool IsQualifiedName(std::string_view name);
bool IsDnsSubdomain(std::string_view name);

// A list of "one, two or three".
std::string OneOf(std::initializer_list<std::string_view> values);

void AddNote(std::vector<::charter::kueue::Note>* notes, const Where& where, std::string_view message,
             bool warning = false);

}  // namespace charter::internal::kueue

#endif  // CHARTER_KUEUE_FIELDS_H_
