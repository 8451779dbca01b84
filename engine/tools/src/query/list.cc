// Listing: every entity of the unknown's type decided by the authorizer, one
// after another with one evaluation context. The candidate is handed to the
// authorizer as the store's own reference (its uid and key hash known), so a
// candidate costs one decision and no lookup or allocation.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "unwrap/unwrap.h"
#include "query/query_unwrap.h"
#include "charter/query.h"
#include "charter_support/nearest.h"
#include "common/combine.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "query/query_internal.h"
#include "vm/authorizer.h"
#include "vm/program.h"

namespace charter {
namespace internal {
namespace {

// "; did you mean `X`?" for the candidate nearest `word`, when one is near.
std::string Nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best = support::NearestName(word, candidates);
  return best.empty() ? "" : Cat("; did you mean `", best, "`?");
}

}  // namespace

absl::Status CheckQuery(const QueryRequest& query, const EntityStore& store,
                        absl::FunctionRef<bool(std::string_view type, std::string_view id)> names_action) {
  bool resource_unknown = query.unknown() == QueryRequest::Unknown::kResource;
  const EntityUid& known = resource_unknown ? query.principal() : query.resource();
  std::string_view role = resource_unknown ? "principal" : "resource";
  if (store.Find(known.type, known.id) == kNoUid) {
    std::vector<std::string> near;
    for (uint32_t uid = 0; uid < store.num_uids(); ++uid) {
      const EntityRef& r = store.ref(uid);
      if (r.type == known.type) near.push_back(EntityToCedar(r.type, r.id));
    }
    return absl::InvalidArgumentError(
        Cat("the ", role, " `", known.ToString(), "` is not in the entities", Nearest(known.ToString(), near)));
  }
  if (query.schema_checked()) return absl::OkStatus();
  const std::string& type = query.unknown_type();
  bool found = false;
  std::vector<std::string> types;
  for (uint32_t uid = 0; uid < store.num_uids() && !found; ++uid) {
    if (store.data(uid) == nullptr) continue;
    std::string_view t = store.ref(uid).type;
    found = t == type;
    if (std::find(types.begin(), types.end(), t) == types.end()) types.emplace_back(t);
  }
  if (!found) {
    return absl::InvalidArgumentError(Cat("no entity in the entities has the ",
                                          resource_unknown ? "resource" : "principal", " type `", type, "`",
                                          Nearest(type, types)));
  }
  const EntityUid& action = query.action();
  if (store.Find(action.type, action.id) == kNoUid && !names_action(action.type, action.id)) {
    return absl::InvalidArgumentError(
        Cat("the action `", action.ToString(), "` is named by no policy and is not in the entities"));
  }
  return absl::OkStatus();
}

namespace {

// Decides every candidate from `start`, calling `visit(uid, scratch)` for
// each allowed one until it returns false; returns the position after the
// last candidate examined, or 0 when none is left.
template <typename Visit>
absl::StatusOr<size_t> DecideCandidates(const Engine& engine, const QueryRequest& query, const Entities& entities,
                           EvalScratch* scratch, const ListOptions& options, size_t* examined, Visit&& visit) {
  const std::shared_ptr<const Program>& program = Unwrap::SharedProgram(engine);
  const std::shared_ptr<const EntityStore>& store = Unwrap::SharedStore(entities);
  if (options.check_query) {
    // The bytecode keeps no list of the actions its policies name: the
    // engine-side check accepts any action (PartialEvaluator checks it).
    RETURN_IF_ERROR(CheckQuery(query, *store, [](std::string_view, std::string_view) { return true; }));
  }
  size_t start = options.start;
  const RequestData& data = QueryUnwrap::Data(query);
  int unknown = query.unknown() == QueryRequest::Unknown::kResource ? 2 : 0;
  RequestView view{{&data.principal_ref, &data.action_ref, &data.resource_ref}, nullptr, &data.context};
  uint64_t hashes[3] = {data.key_hashes[0], data.key_hashes[1], data.key_hashes[2]};
  view.key_hashes = hashes;
  const std::string& type = query.unknown_type();
  *examined = 0;
  for (size_t uid = start; uid < store->num_uids(); ++uid) {
    const EntityRef& candidate = store->ref(static_cast<uint32_t>(uid));
    if (candidate.type != type || store->data(static_cast<uint32_t>(uid)) == nullptr) continue;
    view.entities[unknown] = &candidate;
    hashes[unknown] = store->key_hash(static_cast<uint32_t>(uid));
    ++*examined;
    if (Authorize(program, view, store, scratch) && !visit(candidate, *scratch)) return uid + 1;
  }
  return 0;
}

}  // namespace
}  // namespace internal

absl::StatusOr<ListPage> ListAllowed(const Engine& engine, const QueryRequest& query, const Entities& entities,
                                     const ListOptions& options) {
  internal::EvalScratch scratch;
  ListPage page;
  if (options.limit == 0) {
    page.next = options.start;
    return page;
  }
  ASSIGN_OR_RETURN(
      page.next,
      internal::DecideCandidates(engine, query, entities, &scratch, options, &page.examined,
                    [&](const internal::EntityRef& e, const internal::EvalScratch& s) {
                      QueryMatch m;
                      m.uid = EntityUid{std::string(e.type), std::string(e.id)};
                      for (std::string_view id : internal::DeterminingPolicies(s.permits, s.forbids)) {
                        m.reasons.emplace_back(id);
                      }
                      for (const PolicyErrorView& err : s.errors) {
                        m.errors.push_back(PolicyError{std::string(err.policy_id), std::string(err.message), err.span});
                      }
                      page.matches.push_back(std::move(m));
                      return page.matches.size() < options.limit;
                    }));
  return page;
}

absl::Status ForEachAllowed(const Engine& engine, const QueryRequest& query, const Entities& entities,
                            absl::FunctionRef<bool(const QueryMatchView&)> visit, EvalContext* context,
                            const ListOptions& options) {
  EvalContext local;
  EvalContext* c = context != nullptr ? context : &local;
  std::unique_ptr<internal::EvalScratch>& scratch = internal::Unwrap::Scratch(c);
  if (scratch == nullptr) scratch = std::make_unique<internal::EvalScratch>();
  size_t examined = 0;
  absl::StatusOr<size_t> done =
      internal::DecideCandidates(engine, query, entities, scratch.get(), options, &examined,
                    [&](const internal::EntityRef& e, const internal::EvalScratch& s) {
                      QueryMatchView m{e.type, e.id, internal::DeterminingPolicies(s.permits, s.forbids), s.errors};
                      return visit(m);
                    });
  return done.status();
}

}  // namespace charter
