#include "enforcement.h"

#include <algorithm>
#include <utility>

#include <string>

#include "absl/strings/string_view.h"

namespace charter::server {

absl::StatusOr<Enforcement> ParseEnforcement(std::string_view text) {
  if (text == "deny") return Enforcement::kDeny;
  if (text == "warn") return Enforcement::kWarn;
  if (text == "dryrun") return Enforcement::kDryRun;
  return absl::InvalidArgumentError("an enforcement is \"deny\", \"warn\" or \"dryrun\", not \"" +
                                     std::string(text) + "\"");
}

std::string_view EnforcementName(Enforcement mode) {
  switch (mode) {
    case Enforcement::kDeny: return "deny";
    case Enforcement::kWarn: return "warn";
    case Enforcement::kDryRun: return "dryrun";
  }
  return "deny";
}

absl::StatusOr<EnforcementTable> EnforcementTable::FromEngine(const Engine& engine, Enforcement server) {
  EnforcementTable table;
  table.server_ = server;
  for (const PolicyInfo& policy : engine.policies()) {
    Enforcement own = Enforcement::kDeny;
    bool annotated = false;
    for (const auto& [key, value] : policy.annotations) {
      if (key != "enforcement") continue;
      absl::StatusOr<Enforcement> parsed = ParseEnforcement(value);
      if (!parsed.ok()) {
        return absl::InvalidArgumentError("policy `" + policy.id + "`: @enforcement: " +
                                          std::string(parsed.status().message()));
      }
      own = *parsed;
      annotated = true;
    }
    if (annotated && !policy.forbid) {
      return absl::InvalidArgumentError("policy `" + policy.id +
                                        "`: @enforcement applies to forbid policies only (a permit never denies)");
    }
    Enforcement mode = std::min(own, server);
    if (policy.forbid && mode != Enforcement::kDeny) table.relaxed_.emplace(policy.id, mode);
  }
  return table;
}

std::string EnforcementTable::Describe() const {
  std::string out = "enforcement " + std::string(EnforcementName(server_));
  if (server_ != Enforcement::kDeny) {
    out += server_ == Enforcement::kWarn ? ": what would be denied is allowed, with a warning"
                                         : ": what would be denied is allowed, and annotated only";
  }
  std::vector<std::pair<std::string, Enforcement>> relaxed(relaxed_.begin(), relaxed_.end());
  std::sort(relaxed.begin(), relaxed.end());
  // Under a server mode below deny every forbid is relaxed; name only those
  // whose own annotation says less than the server's.
  std::string named;
  for (const auto& [id, mode] : relaxed) {
    if (server_ != Enforcement::kDeny && mode == server_) continue;
    named += (named.empty() ? "" : ", ") + ("`" + id + "` (" + std::string(EnforcementName(mode)) + ")");
  }
  if (!named.empty()) out += "; not enforced: " + named;
  return out;
}

Enforcement EnforcementTable::For(std::string_view forbid) const {
  // The map's string hash looks an absl::string_view up without a copy.
  auto it = relaxed_.find(absl::string_view(forbid.data(), forbid.size()));
  return it == relaxed_.end() ? server_ : it->second;
}

Decision Enforce(const EvalContext& context, const EnforcementTable& table, bool admission,
                 std::vector<Unenforced>* unenforced) {
  unenforced->clear();
  if (table.enforces_all()) return context.ToDecision();
  Decision d;
  for (const PolicyErrorView& e : context.errors()) {
    d.errors.push_back(PolicyError{std::string(e.policy_id), std::string(e.message), e.span});
  }
  std::vector<std::string> enforced;
  for (std::string_view forbid : context.satisfied_forbids()) {
    Enforcement mode = table.For(forbid);
    if (mode == Enforcement::kDeny) {
      enforced.emplace_back(forbid);
    } else {
      unenforced->push_back(Unenforced{std::string(forbid), mode});
    }
  }
  std::span<const std::string_view> permits = context.satisfied_permits();
  if (!enforced.empty()) {
    d.allowed = false;
    d.reasons = std::move(enforced);
  } else if (!permits.empty()) {
    d.allowed = true;
    for (std::string_view p : permits) d.reasons.emplace_back(p);
  } else if (admission && table.server() != Enforcement::kDeny) {
    // No policy permits it, and the server does not enforce that.
    d.allowed = true;
    unenforced->push_back(Unenforced{"", table.server()});
  } else {
    d.allowed = false;
  }
  return d;
}

}  // namespace charter::server
