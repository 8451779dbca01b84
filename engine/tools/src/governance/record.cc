// RecordReview (charter/governance.h): a review written into a connection's
// contract in the entity file's own text. The file is read twice: as
// entities (checked against the schema: the connection, the reviewer) and as
// a JSON document, whose offsets say where the contract's members are. The
// edits replace member values where they are and add members after the
// contract's last one, laid out as the members before it; every other byte
// stays. The result is read again against the schema before it is returned.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "unwrap/unwrap.h"
#include "charter/governance.h"
#include "common/status_macros.h"
#include "common/strings.h"
#include "governance/model.h"
#include "extensions/extensions.h"
#include "json/json.h"

namespace charter {
namespace internal::review {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The end (one past) of the JSON value that starts at `at` in a text the
// parser accepted.
uint32_t ValueEnd(std::string_view text, uint32_t at) {
  char c = text[at];
  if (c == '"') {
    uint32_t i = at + 1;
    while (text[i] != '"') i += text[i] == '\\' ? 2 : 1;
    return i + 1;
  }
  if (c != '{' && c != '[') {
    uint32_t i = at;
    while (i < text.size() && !IsSpace(text[i]) && text[i] != ',' && text[i] != '}' && text[i] != ']') ++i;
    return i;
  }
  int depth = 0;
  for (uint32_t i = at; i < text.size(); ++i) {
    char d = text[i];
    if (d == '"') {
      ++i;
      while (text[i] != '"') i += text[i] == '\\' ? 2 : 1;
    } else if (d == '{' || d == '[') {
      ++depth;
    } else if (d == '}' || d == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return static_cast<uint32_t>(text.size());
}

// A uid as Cedar's entity JSON writes it: {"type", "id"} or {"__entity": {...}}.
bool UidIs(const json::Value& v, const EntityUid& uid) {
  const json::Value* inner = v.Find("__entity");
  const json::Value& u = inner != nullptr ? *inner : v;
  const json::Value* type = u.Find("type");
  const json::Value* id = u.Find("id");
  return type != nullptr && id != nullptr && type->is_string() && id->is_string() && type->as_string() == uid.type &&
         id->as_string() == uid.id;
}

struct Edit {
  uint32_t begin, end;
  std::string text;
};

std::string Quoted(std::string_view s) {
  std::string out;
  json::AppendQuoted(&out, s);
  return out;
}

std::string DateValue(int64_t ms) {
  return Cat("{\"__extn\": {\"fn\": \"datetime\", \"arg\": ", Quoted(FormatDate(ms)), "}}");
}

}  // namespace
}  // namespace internal::review

absl::StatusOr<std::string> RecordReview(std::string_view entities_json, std::string_view source_name,
                                         const Schema& schema, const ReviewRecord& record) {
  using namespace internal;
  using internal::Value;  // not charter::Value
  using namespace internal::review;
  if (record.decision != "keep" && record.decision != "revoke") {
    return absl::InvalidArgumentError(Cat("the decision `", record.decision, "` is not keep or revoke"));
  }
  ASSIGN_OR_RETURN(int64_t at, ParseDate(record.at));
  int64_t next = 0;
  if (record.decision == "keep") {
    if (record.next.empty()) {
      next = at + 365 * ext::kMillisPerDay;
    } else {
      ASSIGN_OR_RETURN(next, ParseDate(record.next));
      if (next <= at) {
        return absl::InvalidArgumentError(
            Cat("the next review (", record.next, ") must come after this one (", record.at, ")"));
      }
    }
  } else if (!record.next.empty()) {
    return absl::InvalidArgumentError("a revoked connection has no next review: --next is for keep");
  }
  ASSIGN_OR_RETURN(Entities entities, Entities::FromJson(entities_json, schema, source_name));
  const EntityStore& store = Unwrap::Store(entities);
  const ModelNames names = ModelNames::For(record.connection.type);
  const StoreIndex index(store);
  const uint32_t conn = index.Find(record.connection);
  if (!index.HasData(conn) || index.Attr(conn, {"contract"}) == nullptr) {
    return absl::NotFoundError(Cat(source_name, ": the entities have no connection ",
                                   EntityToCedar(record.connection.type, record.connection.id)));
  }
  if (record.by.type != names.member) {
    return absl::InvalidArgumentError(Cat("the reviewer must be a ", names.member, ", not a ", record.by.type));
  }
  const uint32_t by = index.Find(record.by);
  if (!index.HasData(by)) {
    return absl::InvalidArgumentError(Cat(source_name, ": the reviewer ", record.by.id, " is not a member in the store"));
  }
  if (const Value* s = index.Attr(by, {"suspended"}); s != nullptr && s->type == Type::kBool && s->b) {
    return absl::InvalidArgumentError(Cat("the reviewer ", record.by.id, " is suspended"));
  }

  // ---- where the contract is in the text
  ASSIGN_OR_RETURN(json::Document doc, json::Parse(entities_json));
  const json::Value* contract = nullptr;
  for (size_t i = 0; i < doc.root().size() && contract == nullptr; ++i) {
    const json::Value& e = doc.root().at(i);
    const json::Value* uid = e.Find("uid");
    if (uid == nullptr || !UidIs(*uid, record.connection)) continue;
    const json::Value* attrs = e.Find("attrs");
    if (attrs != nullptr) contract = attrs->Find("contract");
  }
  if (contract == nullptr || !contract->is_object() || contract->size() == 0) {
    return absl::InvalidArgumentError(Cat(source_name, ": cannot find the contract of ",
                                          EntityToCedar(record.connection.type, record.connection.id),
                                          " in the text"));
  }
  const std::string_view text = entities_json;
  auto member_index = [&](std::string_view key) -> int {
    int found = -1;
    for (size_t i = 0; i < contract->size(); ++i) {
      if (contract->key(i) == key) found = static_cast<int>(i);
    }
    return found;
  };
  // How members are laid out: the text between one member's comma and the
  // next member's key (one space when the contract has a single member).
  std::string separator = " ";
  size_t last = contract->size() - 1;
  if (last > 0) {
    uint32_t prev_end = ValueEnd(text, contract->member(last - 1).offset());
    uint32_t comma = static_cast<uint32_t>(text.find(',', prev_end));
    separator = std::string(text.substr(comma + 1, contract->key_offset(last) - comma - 1));
  }
  const uint32_t last_end = ValueEnd(text, contract->member(last).offset());
  std::vector<Edit> edits;
  std::string added;  // members added after the last one
  auto set = [&](std::string_view key, const std::string& value) {
    int i = member_index(key);
    if (i >= 0) {
      uint32_t b = contract->member(i).offset();
      edits.push_back(Edit{b, ValueEnd(text, b), value});
    } else {
      CatAppend(&added, ",", separator, Quoted(key), ": ", value);
    }
  };
  std::string review = Cat("{\"date\": ", DateValue(at), ", \"by\": {\"__entity\": {\"type\": ", Quoted(record.by.type),
                           ", \"id\": ", Quoted(record.by.id), "}}, \"decision\": {\"__entity\": {\"type\": ",
                           Quoted(names.review_decision), ", \"id\": ", Quoted(record.decision), "}}");
  if (!record.note.empty()) CatAppend(&review, ", \"note\": ", Quoted(record.note));
  review += "}";

  set("lastReviewed", DateValue(at));
  if (record.decision == "keep") set("reviewDate", DateValue(next));
  if (int i = member_index("reviews"); i >= 0 && contract->member(i).is_array()) {
    const json::Value& reviews = contract->member(i);
    uint32_t close = ValueEnd(text, reviews.offset()) - 1;  // the `]`
    if (reviews.size() == 0) {
      edits.push_back(Edit{close, close, review});
    } else {
      uint32_t end = ValueEnd(text, reviews.at(reviews.size() - 1).offset());
      edits.push_back(Edit{end, end, Cat(", ", review)});
    }
  } else {
    set("reviews", Cat("[", review, "]"));
  }
  if (record.decision == "revoke") {
    set("revoked", DateValue(at));
  } else if (int i = member_index("revoked"); i >= 0) {
    // Keeping a revoked connection reinstates it: the member goes, with the
    // comma before it (or after it, when it is the first).
    uint32_t end = ValueEnd(text, contract->member(i).offset());
    if (i > 0) {
      uint32_t prev_end = ValueEnd(text, contract->member(i - 1).offset());
      edits.push_back(Edit{prev_end, end, ""});
    } else {
      uint32_t next_key = contract->size() > 1 ? contract->key_offset(1) : end;
      edits.push_back(Edit{contract->key_offset(0), next_key, ""});
    }
  }
  if (!added.empty()) edits.push_back(Edit{last_end, last_end, added});
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  uint32_t pos = 0;
  for (const Edit& e : edits) {
    // INVARIANT: edits do not overlap (each touches its own member, and the
    // additions come after the last member's value).
    out.append(text.substr(pos, e.begin - pos));
    out += e.text;
    pos = e.end;
  }
  out.append(text.substr(pos));
  absl::StatusOr<Entities> check = Entities::FromJson(out, schema, source_name);
  if (!check.ok()) {
    return absl::InternalError(Cat("the recorded review does not conform to the schema: ", check.status().message()));
  }
  return out;
}

}  // namespace charter
