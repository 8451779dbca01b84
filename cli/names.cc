// Short names on the command line, resolved against a schema and entities.
#include "names.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "charter_support/nearest.h"
#include "report.h"
#include "util.h"

namespace charter::cli {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsActionType(std::string_view type) { return type == "Action" || EndsWith(type, "::Action"); }

std::string Quoted(const std::string& text) { return Cat("`", Printable(text), "`"); }

// "`a`, `b` or `c`".
std::string Listed(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    CatAppend(&out, i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", Quoted(names[i]));
  }
  return out;
}

absl::Status Ambiguous(const std::string& flag, const std::string& text, const std::vector<std::string>& names) {
  return absl::InvalidArgumentError(
      Cat(flag, ": ", Quoted(text), " is ambiguous: it could be ", Listed(names), "; write the one you mean"));
}

// The known type nearest `written`, compared whole or by last names (`Tsak`
// finds `Governance::Task`); empty if none is near.
std::string NearestType(const std::string& written, const std::set<std::string>& types) {
  std::string nearest = support::NearestName(written, types);
  if (!nearest.empty()) return nearest;
  const size_t sep = written.rfind("::");
  const std::string last = sep == std::string::npos ? written : written.substr(sep + 2);
  std::vector<std::string> lasts;
  for (const std::string& t : types) {
    const size_t s = t.rfind("::");
    lasts.push_back(s == std::string::npos ? t : t.substr(s + 2));
  }
  std::string near_last = support::NearestName(last, lasts);
  if (near_last.empty()) return "";
  for (const std::string& t : types) {
    if (t == near_last || EndsWith(t, Cat("::", near_last))) return t;
  }
  return "";
}

}  // namespace

NameScope::NameScope(const Schema* schema, const Entities* entities) : has_schema_(schema != nullptr) {
  auto add_action = [this](const EntityUid& a) {
    if (std::find(actions_.begin(), actions_.end(), a) == actions_.end()) actions_.push_back(a);
    action_types_.insert(a.type);
  };
  if (schema != nullptr) {
    for (const std::string& t : schema->EntityTypes()) types_.insert(t);
    for (const EntityUid& a : schema->Actions()) add_action(a);
  }
  if (entities != nullptr) {
    for (const EntityUid& u : entities->KnownUids()) {
      if (IsActionType(u.type)) {
        add_action(u);
      } else {
        uids_.push_back(u);
        types_.insert(u.type);
      }
    }
  }
}

std::vector<std::string> NameScope::TypesFor(const std::string& written, bool actions) const {
  std::vector<std::string> out;
  for (const std::string& t : actions ? action_types_ : types_) {
    if (t == written) return {t};
    if (EndsWith(t, Cat("::", written))) out.push_back(t);
  }
  return out;
}

absl::StatusOr<EntityUid> NameScope::Resolve(const std::string& flag, const std::string& text, bool action) const {
  const char* what = action ? "action" : "entity";
  if (text.find('"') == std::string::npos && text.find("::") == std::string::npos && !text.empty()) {
    // A bare id: the one known entity (or action) that has it.
    std::vector<std::string> matches;
    EntityUid found;
    for (const EntityUid& u : action ? actions_ : uids_) {
      if (u.id == text) {
        matches.push_back(u.ToString());
        found = u;
      }
    }
    if (matches.size() == 1) return found;
    if (matches.size() > 1) return Ambiguous(flag, text, matches);
    // The nearest id: fewest edits, then the same first letter, then the
    // nearest length (`alcie` is `alice`, not `acme`).
    std::string hint;
    size_t best = std::max<size_t>(2, text.size() / 4) + 1;
    std::tuple<size_t, bool, size_t> best_key{best, true, 0};
    for (const EntityUid& u : action ? actions_ : uids_) {
      size_t d = support::EditDistance(text, u.id);
      if (d >= best) continue;
      std::tuple<size_t, bool, size_t> key{d, u.id.empty() || u.id[0] != text[0],
                                           u.id.size() > text.size() ? u.id.size() - text.size() : text.size() - u.id.size()};
      if (key < best_key) {
        best_key = key;
        hint = Cat("; did you mean ", Quoted(u.ToString()), "?");
      }
    }
    return absl::InvalidArgumentError(Cat(flag, ": no known ", what, " has the id ", Quoted(text),
                                          hint.empty() ? Cat(" (write it as Type::\"id\")") : hint));
  }
  absl::StatusOr<EntityUid> uid = EntityUid::Parse(text);
  if (!uid.ok()) {
    return absl::InvalidArgumentError(Cat(flag, ": ", Quoted(text), " is not an entity uid (",
                                          OneLine(uid.status().message()),
                                          "); write it as Type::\"id\", or the id alone"));
  }
  std::vector<std::string> types = TypesFor(uid->type, action);
  if (types.size() == 1) return EntityUid{types[0], uid->id};
  if (types.size() > 1) {
    std::vector<std::string> names;
    for (const std::string& t : types) names.push_back(EntityUid{t, uid->id}.ToString());
    return Ambiguous(flag, text, names);
  }
  // A type nothing here knows: taken as written, unless a schema says
  // which types there are.
  if (!has_schema_) return uid;
  std::string nearest = NearestType(uid->type, action ? action_types_ : types_);
  return absl::InvalidArgumentError(Cat(flag, ": the schema declares no ", action ? "action type " : "entity type ",
                                        Quoted(uid->type),
                                        nearest.empty() ? std::string() : Cat("; did you mean ", Quoted(nearest), "?")));
}

absl::StatusOr<EntityUid> NameScope::Uid(const std::string& flag, const std::string& text) const {
  return Resolve(flag, text, /*action=*/false);
}

absl::StatusOr<EntityUid> NameScope::Action(const std::string& flag, const std::string& text) const {
  return Resolve(flag, text, /*action=*/true);
}

absl::StatusOr<std::string> NameScope::Type(const std::string& flag, const std::string& text) const {
  std::vector<std::string> types = TypesFor(text, /*actions=*/false);
  if (types.size() == 1) return types[0];
  if (types.size() > 1) return Ambiguous(flag, text, types);
  if (!has_schema_) return text;
  std::string nearest = NearestType(text, types_);
  return absl::InvalidArgumentError(Cat(flag, ": the schema declares no entity type ", Quoted(text),
                                        nearest.empty() ? std::string() : Cat("; did you mean ", Quoted(nearest), "?")));
}

}  // namespace charter::cli
