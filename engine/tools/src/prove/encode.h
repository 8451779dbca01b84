// The encoding of a policy set's decision, for one request signature, as an
// SMT formula over the request and every entity store the schema allows
// (docs/proving.md, "The encoding"). Values of the encoded fragment:
//   Bool            a Z3 Bool
//   Long            a 64-bit bit-vector; + - * and unary - are exact in 128
//                   bits and err outside Cedar's 64-bit range
//   String          an Int: literals are numbered, other values are fresh
//   entity of T     an Int in T's own numbering (literals numbered, others fresh)
//   datetime        a 64-bit bit-vector: milliseconds since the epoch, from
//                   1970 to 9999 (as Cedar's JSON can write it)
//   a record        only as an entity's attribute, read through: each path
//                   to a field (`contract.reviewDate`) is an attribute of
//                   the entity of its own, an optional one with its `has`
// and each expression's error is a Z3 Bool beside its value. The store is
// uninterpreted functions of the entity: exists_T, attr_T_a, has_T_a (an
// optional attribute), and anc_A_B (an entity of A below one of B, for each
// pair the schema's memberOfTypes allow), transitively closed over the terms
// the policies mention. Anything else is Unimplemented with the construct and
// where it is: the caller answers "unknown".
#ifndef CHARTER_PROVE_ENCODE_H_
#define CHARTER_PROVE_ENCODE_H_

#include <z3.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ast/ast.h"
#include "charter/diagnostics.h"
#include "charter/prove.h"
#include "schema/schema_model.h"

namespace charter::internal::prove {

// One encoded expression.
struct Term {
  // kRecord: a record-typed attribute of an entity (`value` is the entity),
  // at `path`; only `.field` and `has` read it.
  enum class Kind : uint8_t { kBool, kLong, kString, kEntity, kDatetime, kRecord };
  Kind kind = Kind::kBool;
  std::string type;  // kEntity: its entity type; kRecord: the entity's
  std::vector<std::string> path;  // kRecord: the attribute, then the fields
  Z3_ast value = nullptr;
  Z3_ast error = nullptr;
  // An action (whose uid is known when the encoding is built).
  std::optional<ActionKey> action;
};

// A policy's outcome: `satisfied` (its condition evaluates to true) and
// `error` (its evaluation errs); both false when it cannot apply.
struct PolicyOutcome {
  Z3_ast satisfied = nullptr;
  Z3_ast error = nullptr;
};

// The policies of one set, as the encoder sees them.
struct PolicyRef {
  const ast::Policy* policy = nullptr;
  const SourceFile* source = nullptr;
};

class Encoder {
 public:
  Encoder(Z3_context c, const SchemaModel& model, const ProofSignature& signature, uint32_t max_depth);

  // The outcome of each policy, or Unimplemented naming the first construct
  // outside the encoding in a policy that can apply to the signature.
  absl::StatusOr<std::vector<PolicyOutcome>> EncodeSet(const std::vector<PolicyRef>& policies);
  // The same, but a policy of effect `leave_out` outside the encoding is
  // left out (it neither permits nor forbids: outcome false), its id and why
  // appended to `left_out`. Sound where the property only gets harder to
  // hold without it (a forbid, when the question is whether anything is
  // allowed); the caller decides.
  absl::StatusOr<std::vector<PolicyOutcome>> EncodeSet(const std::vector<PolicyRef>& policies,
                                                       std::optional<ast::Effect> leave_out,
                                                       std::vector<std::string>* left_out);
  // allow = some permit satisfied and no forbid satisfied.
  Z3_ast Allows(const std::vector<PolicyRef>& policies, const std::vector<PolicyOutcome>& outcomes);
  Z3_ast AnyError(const std::vector<PolicyOutcome>& outcomes);
  // The constraints every store and request of the signature satisfy (the
  // hierarchy's transitivity over the terms, ancestors only of entities in
  // the store). Call after every EncodeSet.
  absl::StatusOr<std::vector<Z3_ast>> Axioms();

  // The counterexample a model gives: Cedar's JSON entities and request.
  struct Rendered {
    std::string entities_json;
    std::string request_json;
  };
  Rendered Render(Z3_model m);

  // Every Long the counterexample would show (the Long attributes of the
  // entities the policies mention, the context's Longs) between -bound and
  // bound: asked for first, so that counterexamples hold small numbers
  // where they can.
  Z3_ast SmallLongs(int64_t bound);

  // Whether the policy's scope can match the signature at all (decided from
  // the types and the schema's action groups alone).
  bool CanApply(const ast::Policy& p) const;

 private:
  struct Attribute {
    Z3_func_decl value = nullptr;
    Z3_func_decl has = nullptr;  // optional attributes
    bool is_long = false;
    bool is_datetime = false;
  };

  absl::StatusOr<Term> Encode(const ast::Expr& e, uint32_t depth);
  absl::StatusOr<Term> EncodeAttr(const ast::Expr& e, uint32_t depth);
  // What `.field` and `has` read: a record-typed attribute stays a kRecord.
  absl::StatusOr<Term> EncodeOperand(const ast::Expr& e, uint32_t depth);
  // The type at `path` below an entity type's attributes (null: undeclared).
  const AttrType* PathType(const std::string& type, const std::vector<std::string>& path) const;
  // The JSON of attributes (an entity's, or a record's fields at `path`).
  std::string AttrsJson(Z3_model m, const std::string& type, const std::vector<std::string>& path,
                        const std::map<std::string, AttrType>& attrs, Z3_ast v, int depth);
  absl::StatusOr<Term> EncodeHas(const ast::Expr& e, uint32_t depth);
  absl::StatusOr<Term> EncodeBinary(const ast::Expr& e, uint32_t depth);
  absl::StatusOr<Term> In(const Term& a, const Term& b, const ast::Expr& where);
  absl::StatusOr<PolicyOutcome> EncodePolicy(const ast::Policy& p);
  Z3_ast ScopeTerm(const ast::ScopeConstraint& s, const Term& var, const ast::Policy& p);
  bool ActionIn(const ActionKey& a, const ActionKey& group) const;

  absl::Status Outside(const ast::Expr& e, std::string_view what) const;
  absl::Status Outside(Span span, std::string_view what) const;

  Z3_ast True() const { return Z3_mk_true(c_); }
  Z3_ast False() const { return Z3_mk_false(c_); }
  Z3_ast And(Z3_ast a, Z3_ast b) const;
  Z3_ast Or(Z3_ast a, Z3_ast b) const;
  Z3_ast Not(Z3_ast a) const { return Z3_mk_not(c_, a); }
  Z3_ast Eq(Z3_ast a, Z3_ast b) const { return Z3_mk_eq(c_, a, b); }
  Z3_ast Ite(Z3_ast c, Z3_ast a, Z3_ast b) const { return Z3_mk_ite(c_, c, a, b); }
  Z3_ast Long(int64_t v) const;
  Term Bool(Z3_ast v, Z3_ast error) const;

  Z3_ast Atom(const std::string& domain, const std::string& text);
  Term EntityTerm(const std::string& type, Z3_ast value, Z3_ast error);
  Z3_func_decl Exists(const std::string& type);
  Z3_func_decl Ancestor(const std::string& below, const std::string& above);
  std::optional<Attribute> EntityAttribute(const std::string& type, const std::string& name);
  std::optional<Attribute> EntityAttribute(const std::string& type, const std::vector<std::string>& path);
  // Whether `type` is an enumerated entity type the encoding covers: its
  // values are its choices, and it is in no hierarchy (no parents, nothing
  // under it or above it).
  bool Enumerable(const std::string& type) const;
  // Whether an entity of `below` may be under one of `above` (transitively).
  bool Reaches(const std::string& below, const std::string& above) const;

  std::string AtomText(const std::string& domain, int64_t n) const;
  std::string DefaultJson(const SchemaType& t, int depth);
  void AppendValue(std::string* out, Z3_model m, const Term::Kind kind, const std::string& type, Z3_ast value);
  int64_t IntOf(Z3_model m, Z3_ast a) const;

  Z3_context c_;
  const SchemaModel& model_;
  ProofSignature signature_;
  ActionKey action_;
  const ActionInfo* action_info_ = nullptr;
  uint32_t max_depth_;
  const ast::Policy* policy_ = nullptr;  // the one being encoded
  const SourceFile* source_ = nullptr;
  Z3_sort bool_, bv_, int_, bv128_;
  Z3_ast principal_ = nullptr, resource_ = nullptr;
  // Literal numbering a domain ("" for strings, else the entity type).
  std::map<std::string, std::map<std::string, int64_t>> atoms_;
  std::map<std::string, Z3_func_decl> exists_;
  std::map<std::pair<std::string, std::string>, Z3_func_decl> ancestors_;
  std::map<std::pair<std::string, std::string>, Attribute> attributes_;
  // Context attributes that the policies read: value and `has` constants.
  std::map<std::string, std::pair<Term, Z3_ast>> context_;
  // Every entity term the policies mention, by type (ids dedupe them).
  std::map<std::string, std::vector<Z3_ast>> terms_;
  std::map<std::string, std::vector<unsigned>> term_ids_;
  // Each value of an enumerated type is one of its choices.
  std::vector<Z3_ast> domains_;
  int fresh_ = 0;
};

}  // namespace charter::internal::prove

#endif  // CHARTER_PROVE_ENCODE_H_
