// The prover against brute force (docs/proving.md, "Proving the prover").
// For generated policy sets over a small generated schema, every entity
// store with up to two users and two groups over tiny value domains, and
// every request over them, is decided by the engine (the set, a second
// generated set, and each policy alone); then, for each property
// (always-allows, always-denies, never-errors; equivalent, implies and
// disjoint against the second set; vacuous, shadowed, redundant and
// overridden of each policy):
//   - "holds" must hold on every enumerated store and request;
//   - where the enumeration finds a violation the prover must not say "holds";
//   - every counterexample must be real: it loads with the schema and the
//     engines decide it as claimed (the prover replays it before answering;
//     this test replays it again, independently: a policy's own outcome here
//     comes from an engine of that policy alone, the prover's from the
//     reference interpreter).
// The enumeration is not complete (Long attributes take a few values), so
// "does not hold" with no enumerated violation is fine; it is counted.
//
//   prove_differential [--seed N] [--count N] [--timeout MS]
// Exits 0 when every case agrees, 1 with the first disagreement on stderr.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "charter/charter.h"
#include "charter/prove.h"
#include "charter/schema.h"

namespace {

using charter::Decision;
using charter::Engine;
using charter::Entities;
using charter::ProofAnswer;
using charter::ProofProperty;
using charter::ProofResult;
using charter::Request;
using charter::Schema;
using charter::SourceFile;

constexpr const char* kMax = "9223372036854775807";

struct Gen {
  std::mt19937_64 rng;
  bool nested_groups = true;  // Group in [Group]
  explicit Gen(uint64_t seed) : rng(seed) {}
  int Pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }

  std::string Long(int depth) {
    int k = depth > 2 ? Pick(4) : Pick(8);
    switch (k) {
      case 0: return "0";
      case 1: return "1";
      case 2: return "principal.rank";
      case 3: return "context.n";
      case 4: return "(" + Long(depth + 1) + " + " + Long(depth + 1) + ")";
      case 5: return "(" + Long(depth + 1) + " - " + Long(depth + 1) + ")";
      case 6: return "(" + Long(depth + 1) + " * " + Long(depth + 1) + ")";
      default: return kMax;
    }
  }
  std::string UserTerm() {
    switch (Pick(3)) {
      case 0: return "principal";
      case 1: return "User::\"a\"";
      default: return "User::\"b\"";
    }
  }
  std::string GroupTerm() {
    switch (Pick(3)) {
      case 0: return "resource";
      case 1: return "Group::\"g\"";
      default: return "Group::\"h\"";
    }
  }
  std::string Bool(int depth) {
    int k = depth > 2 ? Pick(8) : Pick(16);
    switch (k) {
      case 0: return Pick(2) ? "true" : "false";
      case 1: return "principal.admin";
      case 2: return "principal has manager";
      case 3: return "context has flag";
      case 4: return "(context has flag && context.flag)";
      case 5: return UserTerm() + " in " + GroupTerm();
      case 6: return GroupTerm() + " in " + GroupTerm();
      case 7: return Long(depth + 1) + (Pick(2) ? " < " : " >= ") + Long(depth + 1);
      case 8: return "(" + Bool(depth + 1) + " && " + Bool(depth + 1) + ")";
      case 9: return "(" + Bool(depth + 1) + " || " + Bool(depth + 1) + ")";
      case 10: return "!(" + Bool(depth + 1) + ")";
      case 11: return "(if " + Bool(depth + 1) + " then " + Bool(depth + 1) + " else " + Bool(depth + 1) + ")";
      case 12: return UserTerm() + (Pick(2) ? " == " : " != ") + UserTerm();
      case 13:
        switch (Pick(3)) {
          case 0: return "(principal has manager && principal.manager.admin)";
          case 1: return "(principal has manager && principal.manager in " + GroupTerm() + ")";
          default: return "(principal has manager && principal.manager.rank + 1 > principal.rank)";
        }
      case 14: return Long(depth + 1) + " == " + Long(depth + 1);
      default: return std::string("principal is User") + (Pick(2) ? " in " + GroupTerm() : "");
    }
  }
  std::string Scope() {
    std::string p, r;
    switch (Pick(4)) {
      case 0: p = "principal"; break;
      case 1: p = "principal == User::\"a\""; break;
      case 2: p = "principal in Group::\"g\""; break;
      default: p = "principal is User"; break;
    }
    switch (Pick(3)) {
      case 0: r = "resource"; break;
      case 1: r = "resource == Group::\"h\""; break;
      default: r = "resource in Group::\"g\""; break;
    }
    return p + ", action" + (Pick(3) == 0 ? " == Action::\"view\"" : "") + ", " + r;
  }
  std::string PolicySet() {
    std::string out;
    int n = 1 + Pick(3);
    for (int i = 0; i < n; ++i) {
      out += std::string(Pick(3) == 0 ? "forbid" : "permit") + "(" + Scope() + ")";
      int conds = Pick(3);
      for (int c = 0; c < conds; ++c) out += std::string(Pick(4) == 0 ? " unless { " : " when { ") + Bool(0) + " }";
      out += ";\n";
    }
    return out;
  }
  std::string SchemaText() {
    return std::string(nested_groups ? "entity Group in [Group];\n" : "entity Group;\n") +
           "entity User in [Group] { admin: Bool, rank: Long, manager?: User };\n"
           "action view appliesTo { principal: User, resource: Group, context: { n: Long, flag?: Bool } };\n";
  }
};

struct World {
  std::vector<Entities> stores;
  std::vector<std::string> store_json;
  std::vector<Request> requests;
  std::vector<std::string> request_json;
};

World Enumerate(const Schema& schema, bool nested) {
  World w;
  const std::vector<std::string> longs = {"0", kMax};
  const std::vector<std::string> managers = {"", "a", "b"};
  // Each user: admin x rank x manager; its groups: a subset of {g, h}.
  struct UserShape {
    bool admin;
    std::string rank, manager;
    int groups;
  };
  std::vector<UserShape> shapes;
  for (bool admin : {false, true}) {
    for (const std::string& rank : longs) {
      for (const std::string& m : managers) {
        for (int g = 0; g < 4; ++g) shapes.push_back({admin, rank, m, g});
      }
    }
  }
  auto user = [](const std::string& id, const UserShape& s) {
    std::string parents;
    if (s.groups & 1) parents += "{\"type\":\"Group\",\"id\":\"g\"}";
    if (s.groups & 2) parents += std::string(parents.empty() ? "" : ",") + "{\"type\":\"Group\",\"id\":\"h\"}";
    return "{\"uid\":{\"type\":\"User\",\"id\":\"" + id + "\"},\"attrs\":{\"admin\":" + (s.admin ? "true" : "false") +
           ",\"rank\":" + s.rank +
           (s.manager.empty() ? "" : ",\"manager\":{\"__entity\":{\"type\":\"User\",\"id\":\"" + s.manager + "\"}}") +
           "},\"parents\":[" + parents + "]}";
  };
  std::vector<std::string> group_shapes = {
      "{\"uid\":{\"type\":\"Group\",\"id\":\"g\"},\"attrs\":{},\"parents\":[]},"
      "{\"uid\":{\"type\":\"Group\",\"id\":\"h\"},\"attrs\":{},\"parents\":[]}"};
  if (nested) {
    group_shapes.push_back(
        "{\"uid\":{\"type\":\"Group\",\"id\":\"g\"},\"attrs\":{},\"parents\":[{\"type\":\"Group\",\"id\":\"h\"}]},"
        "{\"uid\":{\"type\":\"Group\",\"id\":\"h\"},\"attrs\":{},\"parents\":[]}");
    group_shapes.push_back(
        "{\"uid\":{\"type\":\"Group\",\"id\":\"g\"},\"attrs\":{},\"parents\":[]},"
        "{\"uid\":{\"type\":\"Group\",\"id\":\"h\"},\"attrs\":{},\"parents\":[{\"type\":\"Group\",\"id\":\"g\"}]}");
  }
  // User "a" always, "b" present or absent (so principal "b" may be missing).
  for (size_t ia = 0; ia < shapes.size(); ia += 1) {
    for (int ib = -1; ib < static_cast<int>(shapes.size()); ib += (ib < 0 ? 1 : 5)) {
      for (const std::string& groups : group_shapes) {
        std::string json = "[" + user("a", shapes[ia]) + (ib >= 0 ? "," + user("b", shapes[ib]) : "") + "," +
                           groups + "]";
        absl::StatusOr<Entities> e = Entities::FromJson(json, schema);
        if (!e.ok()) continue;  // e.g. a manager that is not in the store is fine; nothing else fails
        w.stores.push_back(*std::move(e));
        w.store_json.push_back(json);
      }
    }
  }
  for (const char* p : {"a", "b"}) {
    for (const char* r : {"g", "h"}) {
      for (const std::string& n : longs) {
        for (const char* flag : {"", ",\"flag\":true", ",\"flag\":false"}) {
          std::string json = std::string("{\"principal\":\"User::\\\"") + p + "\\\"\",\"action\":\"Action::\\\"view\\\"\","
                             "\"resource\":\"Group::\\\"" + r + "\\\"\",\"context\":{\"n\":" + n + flag + "}}";
          absl::StatusOr<Request> req = Request::FromJson(json, schema);
          if (!req.ok()) {
            std::cerr << "request does not load: " << req.status() << "\n" << json << "\n";
            std::exit(1);
          }
          w.requests.push_back(*std::move(req));
          w.request_json.push_back(json);
        }
      }
    }
  }
  return w;
}

// What one (store, request) gets: the decisions of the set and of the
// other set, and which of the set's policies match (each decided alone by
// an engine of its own: a permit alone allows, a forbid alone gives a reason).
struct Row {
  bool allowed = false, errors = false, other_allowed = false;
  uint32_t matched = 0;  // bit i: policy i matches
};

struct Sets {
  const Engine* engine;
  const Engine* other;
  std::vector<Engine> alone;    // one engine a policy
  std::vector<bool> permit;     // each policy's effect
};

Row Decide(const Sets& sets, const Entities& e, const Request& r) {
  Row row;
  Decision d = sets.engine->Authorize(r, e);
  row.allowed = d.allowed;
  row.errors = !d.errors.empty();
  row.other_allowed = sets.other->Authorize(r, e).allowed;
  for (size_t i = 0; i < sets.alone.size(); ++i) {
    Decision a = sets.alone[i].Authorize(r, e);
    if (sets.permit[i] ? a.allowed : !a.reasons.empty()) row.matched |= 1u << i;
  }
  return row;
}

// Whether the set allows without policy `skip`, from the rows' matches.
bool AllowsWithout(const Sets& sets, const Row& row, size_t skip) {
  bool permit = false, forbid = false;
  for (size_t i = 0; i < sets.permit.size(); ++i) {
    if (i == skip || (row.matched & (1u << i)) == 0) continue;
    (sets.permit[i] ? permit : forbid) = true;
  }
  return permit && !forbid;
}

// The first (store, request) whose row `violates`, or none.
template <typename F>
bool FindViolation(const World& w, const std::vector<Row>& rows, F violates, std::string* where) {
  for (size_t s = 0; s < w.stores.size(); ++s) {
    for (size_t r = 0; r < w.requests.size(); ++r) {
      if (violates(rows[s * w.requests.size() + r])) {
        *where = "store " + w.store_json[s] + "\nrequest " + w.request_json[r];
        return true;
      }
    }
  }
  return false;
}

int Fail(const std::string& what, const std::string& policies, const std::string& other = "") {
  std::cerr << "DISAGREEMENT: " << what << "\npolicies:\n" << policies << (other.empty() ? "" : "\nnew policies:\n")
            << other << "\n";
  return 1;
}

absl::StatusOr<Engine> Build(const std::string& text, const Schema& schema) {
  charter::CompileOptions options;
  options.schema = &schema;
  std::vector<charter::Diagnostics> diags;
  absl::StatusOr<charter::Bundle> b = charter::Compile({SourceFile("p.cedar", text)}, {}, options, &diags);
  if (!b.ok()) return b.status();
  return Engine::Create(*std::move(b));
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 20261207;
  int count = 40;
  uint32_t timeout_ms = 5000;  // per solver query
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--count") count = std::atoi(argv[i + 1]);
    if (flag == "--timeout") timeout_ms = static_cast<uint32_t>(std::atoi(argv[i + 1]));
  }
  Gen gen(seed);
  int holds = 0, refuted = 0, unknown = 0, unmatched = 0, skipped = 0;
  for (int n = 0; n < count; ++n) {
    gen.nested_groups = gen.Pick(2) == 0;
    absl::StatusOr<Schema> schema = Schema::Parse(SourceFile("s.cedarschema", gen.SchemaText()), {}, nullptr);
    if (!schema.ok()) {
      std::cerr << "schema: " << schema.status() << "\n";
      return 1;
    }
    std::string text = gen.PolicySet(), other = gen.PolicySet();
    absl::StatusOr<Engine> engine = Build(text, *schema);
    absl::StatusOr<Engine> other_engine = Build(other, *schema);
    if (!engine.ok() || !other_engine.ok()) {  // the validator refused one: the prover needs valid policies
      ++skipped;
      continue;
    }
    World w = Enumerate(*schema, gen.nested_groups);
    // Each policy alone (the generator writes one a line).
    Sets sets{&*engine, &*other_engine, {}, {}};
    bool refused = false;
    for (size_t at = 0, end; at < text.size(); at = end + 1) {
      end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(at, end - at);
      if (line.empty()) continue;
      absl::StatusOr<Engine> alone = Build(line, *schema);
      if (!alone.ok()) {
        refused = true;
        break;
      }
      sets.alone.push_back(*std::move(alone));
      sets.permit.push_back(line.rfind("permit", 0) == 0);
    }
    if (refused) return Fail("a policy alone does not compile", text, other);
    std::vector<Row> rows;
    rows.reserve(w.stores.size() * w.requests.size());
    for (const Entities& e : w.stores) {
      for (const Request& r : w.requests) rows.push_back(Decide(sets, e, r));
    }
    charter::ProveOptions options;
    options.timeout_ms = timeout_ms;
    struct Check {
      ProofProperty property;
      // Whether a row breaks the property (of policy `i`, for a policy property).
      bool (*violates)(const Sets&, const Row&, size_t i);
    };
    const Check checks[] = {
        {ProofProperty::kAlwaysAllows, [](const Sets&, const Row& r, size_t) { return !r.allowed; }},
        {ProofProperty::kAlwaysDenies, [](const Sets&, const Row& r, size_t) { return r.allowed; }},
        {ProofProperty::kNeverErrors, [](const Sets&, const Row& r, size_t) { return r.errors; }},
        {ProofProperty::kEquivalent, [](const Sets&, const Row& r, size_t) { return r.allowed != r.other_allowed; }},
        {ProofProperty::kImplies, [](const Sets&, const Row& r, size_t) { return r.other_allowed && !r.allowed; }},
        {ProofProperty::kDisjoint, [](const Sets&, const Row& r, size_t) { return r.other_allowed && r.allowed; }},
        // vacuous: a row it matches and one it does not (checked apart below).
        {ProofProperty::kVacuous, [](const Sets&, const Row& r, size_t i) { return (r.matched & (1u << i)) != 0; }},
        {ProofProperty::kShadowed,
         [](const Sets& s, const Row& r, size_t i) {
           if ((r.matched & (1u << i)) == 0) return false;
           for (size_t j = 0; j < s.permit.size(); ++j) {
             if (j != i && s.permit[j] == s.permit[i] && (r.matched & (1u << j)) != 0) return false;
           }
           return true;
         }},
        {ProofProperty::kRedundant,
         [](const Sets& s, const Row& r, size_t i) { return r.allowed != AllowsWithout(s, r, i); }},
        {ProofProperty::kOverridden,
         [](const Sets&, const Row& r, size_t i) { return (r.matched & (1u << i)) != 0 && r.allowed; }},
    };
    for (const Check& check : checks) {
      bool two = charter::IsTwoSetProperty(check.property);
      bool per_policy = charter::IsPolicyProperty(check.property);
      absl::StatusOr<std::vector<ProofAnswer>> answers =
          two ? charter::ProveChange(check.property, {SourceFile("old.cedar", text)},
                                     {SourceFile("new.cedar", other)}, *schema, options)
              : charter::Prove(check.property, {SourceFile("p.cedar", text)}, *schema, options);
      size_t expected = !per_policy ? 1
                        : check.property != ProofProperty::kOverridden
                            ? sets.permit.size()
                            : static_cast<size_t>(std::count(sets.permit.begin(), sets.permit.end(), true));
      if (!answers.ok() || answers->size() != expected) {
        return Fail("the prover failed: " + std::string(answers.status().message()), text, other);
      }
      for (const ProofAnswer& a : *answers) {
        std::string name(charter::ProofPropertyName(check.property));
        size_t i = 0;
        if (per_policy) {
          i = static_cast<size_t>(std::atoi(a.policy.c_str() + 6));  // "policyN"
          name += " of " + a.policy;
          if (a.policy.rfind("policy", 0) != 0 || i >= sets.permit.size()) {
            return Fail(name + ": no such policy", text, other);
          }
        }
        std::string where;
        auto violates = [&](const Row& r) { return check.violates(sets, r, i); };
        auto row_of = [&](const charter::Counterexample& c, Row* row) {
          absl::StatusOr<Entities> e = Entities::FromJson(c.entities_json, *schema);
          absl::StatusOr<Request> r = Request::FromJson(c.request_json, *schema);
          if (!e.ok() || !r.ok()) return false;
          *row = Decide(sets, *e, *r);
          return true;
        };
        if (check.property == ProofProperty::kVacuous) {
          bool hit = FindViolation(w, rows, violates, &where);
          std::string where_miss;
          bool miss = FindViolation(w, rows, [&](const Row& r) { return !violates(r); }, &where_miss);
          if (a.result == ProofResult::kHolds) {
            ++holds;
            bool none = a.reason.find("no request") != std::string::npos;
            if (none ? hit : miss) return Fail(name + " said " + a.reason + ", but:\n" + (none ? where : where_miss), text, other);
          } else if (a.result == ProofResult::kDoesNotHold) {
            ++refuted;
            Row r1, r2;
            if (a.counterexamples.size() != 2 || !row_of(a.counterexamples[0], &r1) ||
                !row_of(a.counterexamples[1], &r2) || !violates(r1) || violates(r2)) {
              return Fail(name + ": the counterexamples are not a match and a miss", text, other);
            }
            if (!hit || !miss) ++unmatched;
          } else {
            if (a.reason.find("the solver gave up") != 0) return Fail(name + " is unknown: " + a.reason, text, other);
            ++unknown;
          }
          continue;
        }
        if (a.result == ProofResult::kHolds) {
          ++holds;
          if (FindViolation(w, rows, violates, &where)) return Fail(name + " said holds, but:\n" + where, text, other);
        } else if (a.result == ProofResult::kDoesNotHold) {
          ++refuted;
          if (a.counterexamples.empty()) return Fail(name + " does not hold without a counterexample", text, other);
          const charter::Counterexample& c = a.counterexamples.front();
          Row row;
          if (!row_of(c, &row)) return Fail(name + " counterexample does not load:\n" + c.entities_json, text, other);
          if (!violates(row)) {
            return Fail(name + " counterexample is not one:\n" + c.entities_json + "\n" + c.request_json, text, other);
          }
          if (!FindViolation(w, rows, violates, &where)) ++unmatched;
        } else {
          // Every generated construct is in the encoding: only the solver's
          // timeout (nonlinear 64-bit multiplication) may leave one unknown.
          if (a.reason.find("the solver gave up") != 0) return Fail(name + " is unknown: " + a.reason, text, other);
          ++unknown;
        }
      }
    }
  }
  std::cout << "prove_differential seed " << seed << ", " << count << " cases (" << skipped
            << " refused by the validator): " << holds << " holds, " << refuted << " does not hold ("
            << unmatched << " beyond the enumeration's bounds), " << unknown << " unknown (solver timeouts); 0 disagreements\n";
  return 0;
}
