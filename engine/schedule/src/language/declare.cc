// Scheduling declarations -> the scheduling configuration (declare.h).
//
// Two passes: the top-level declarations are sorted by kind and their names
// entered (so that a declaration may refer to one that comes later, or is in
// another file), then each is read into the State in the order the JSON
// loader reads a state (engine, flavors, priority classes, cohorts, cluster
// queues, local queues), so that both give the same tables. Kueue's rules
// over each object are cycle/config_check.h's; a fault they find is
// pointed at the declaration's text through the spans kept here.
#include "language/declare.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/diagnostic_codes.h"
#include "common/strings.h"
#include "cycle/config_check.h"
#include "cycle/quantity.h"
#include "value/value.h"

namespace charter::internal {
namespace {

namespace sched = ::charter::schedule;
namespace check = ::charter::internal::schedule;
using ast::DeclEntry;
using ast::DeclValue;

struct Ref {
  size_t file = 0;
  const DeclEntry* entry = nullptr;
};

Span HeadSpan(const DeclEntry& e) {
  return {e.head.span.begin, e.names.empty() ? e.head.span.end : e.names.back().span.end};
}

Span Join(Span a, Span b) { return {a.begin, b.end}; }

bool IsDecimal(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t fraction = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++fraction;
    if (fraction == 0) return false;
  }
  return digits > 0 && i == s.size();
}

bool HasSpace(std::string_view s) { return s.find_first_of(" \t\r\n\f") != std::string_view::npos; }

class Declarer {
 public:
  Declarer(const std::vector<DeclarationFile>& files, const DeclareOptions& options, sched::State* out)
      : files_(files), options_(options), state_(*out) {}

  bool Run();
  // Where each cluster queue's parts are (after Run).
  std::vector<ObjectAt> TakeQueuePlaces() { return std::move(queue_at_); }

 private:
  using Handler = std::function<void(const DeclEntry&)>;

  void Error(size_t file, const char* code, Span span, std::string message, std::string help = "") {
    files_[file].diagnostics->Error(code, span, std::move(message), std::move(help));
    failed_ = true;
  }

  std::string Where(size_t file, Span span, size_t from_file) const { return PlaceOf(files_, file, span, from_file); }

  // --- shapes and values --------------------------------------------------

  // Whether `e` is `WORD NAME...` with `names` names (-1: any number) and a
  // body of an allowed kind; else CH0803 with the form to write.
  bool Shape(const DeclEntry& e, int names, bool bare, bool setting, bool block, std::string_view what,
             std::string_view form) {
    bool ok = (names < 0 || e.names.size() == static_cast<size_t>(names)) &&
              ((bare && e.body == DeclEntry::Body::kBare) || (setting && e.body == DeclEntry::Body::kSetting) ||
               (block && e.body == DeclEntry::Body::kBlock));
    if (ok && e.body == DeclEntry::Body::kSetting && !e.modifiers.empty() && what != "quota") ok = false;
    if (!ok) Error(file_, codes::CH0803, e.span, Cat("malformed ", what), Cat("write `", form, "`"));
    return ok;
  }

  // A name: a string, or an identifier written bare.
  std::optional<std::string> NameValue(const DeclValue& v, std::string_view key) {
    if (v.kind == DeclValue::Kind::kString) return v.text;
    if (v.kind == DeclValue::Kind::kWord && v.text.find(':') == std::string::npos) return v.text;
    Error(file_, codes::CH0803, v.span, Cat("`", key, "` takes a name"), Cat("write `", key, ": \"NAME\";`"));
    return std::nullopt;
  }

  // One of `words` (with their values), written bare.
  template <typename T>
  std::optional<T> WordValue(const DeclValue& v, std::string_view key,
                             std::initializer_list<std::pair<std::string_view, T>> words) {
    std::string list;
    for (const auto& [w, value] : words) {
      if (v.kind == DeclValue::Kind::kWord && v.text == w) return value;
      CatAppend(&list, list.empty() ? "" : ", ", "`", w, "`");
    }
    if (v.kind == DeclValue::Kind::kWord) {
      Error(file_, codes::CH0802, v.span, Cat("unknown value `", v.text, "` for `", key, "`"), Cat("one of ", list));
    } else {
      Error(file_, codes::CH0803, v.span, Cat("`", key, "` takes a word"), Cat("one of ", list));
    }
    return std::nullopt;
  }

  std::optional<bool> BoolValue(const DeclValue& v, std::string_view key) {
    if (v.kind == DeclValue::Kind::kBool) return v.flag;
    Error(file_, codes::CH0803, v.span, Cat("`", key, "` is `true` or `false`"));
    return std::nullopt;
  }

  std::optional<int64_t> IntegerValue(const DeclValue& v, std::string_view what) {
    if (v.kind != DeclValue::Kind::kNumber || HasSpace(v.text)) {
      Error(file_, v.kind == DeclValue::Kind::kNumber ? codes::CH0801 : codes::CH0803, v.span,
            Cat(what, " must be an integer"));
      return std::nullopt;
    }
    int64_t n = 0;
    const char* end = v.text.data() + v.text.size();
    auto [ptr, ec] = std::from_chars(v.text.data(), end, n);
    if (ec == std::errc::result_out_of_range) {
      Error(file_, codes::CH0801, v.span, Cat(what, " is out of range (", v.text, ")"),
            "an integer is between -2^63 and 2^63-1");
      return std::nullopt;
    }
    if (ec != std::errc() || ptr != end) {
      Error(file_, codes::CH0801, v.span, Cat(what, " must be an integer, not `", v.text, "`"));
      return std::nullopt;
    }
    return n;
  }

  // A Kubernetes quantity of `resource` (milli-units for `cpu`).
  std::optional<sched::Quantity> QuantityValue(const DeclValue& v, int resource, std::string_view what) {
    if (v.kind != DeclValue::Kind::kNumber && v.kind != DeclValue::Kind::kString) {
      Error(file_, codes::CH0803, v.span, Cat(what, " must be a quantity such as `8`, `500m` or `64Gi`"));
      return std::nullopt;
    }
    if (HasSpace(v.text)) {
      Error(file_, codes::CH0801, v.span, Cat(what, " is not a quantity: `", v.text, "`"),
            "write a quantity without spaces, such as `64Gi`");
      return std::nullopt;
    }
    int64_t out = 0;
    switch (check::ParseQuantity(v.text, state_.resources[resource] == "cpu", &out)) {
      case check::QuantityError::kOk: return out;
      case check::QuantityError::kNegative:
        Error(file_, codes::CH0801, v.span, Cat(what, " is negative (", v.text, ")"));
        return std::nullopt;
      case check::QuantityError::kTooLarge:
        Error(file_, codes::CH0801, v.span, Cat(what, " is too large (", v.text, ")"));
        return std::nullopt;
      case check::QuantityError::kMalformed: break;
    }
    Error(file_, codes::CH0801, v.span, Cat(what, " is not a quantity: `", v.text, "`"),
          "a quantity is digits with an optional fraction and suffix: `8`, `1.5`, `500m`, `64Gi`, `1e3`");
    return std::nullopt;
  }

  // A fair-sharing weight: a decimal number, or a quantity (`500m`).
  std::optional<double> WeightValue(const DeclValue& v, std::string_view what) {
    if (v.kind == DeclValue::Kind::kNumber && !HasSpace(v.text) && IsDecimal(v.text)) {
      double d = 0;
      auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), d);
      if (ec == std::errc() && ptr == v.text.data() + v.text.size()) return d;
      if (ec == std::errc::result_out_of_range) {
        Error(file_, codes::CH0801, v.span, Cat(what, " is out of range (", v.text, ")"));
        return std::nullopt;
      }
    }
    if (v.kind == DeclValue::Kind::kNumber || v.kind == DeclValue::Kind::kString) {
      int64_t milli = 0;
      if (!HasSpace(v.text) && check::ParseQuantity(v.text, true, &milli) == check::QuantityError::kOk) {
        return static_cast<double>(milli) / 1000.0;
      }
    }
    Error(file_, v.kind == DeclValue::Kind::kNumber ? codes::CH0801 : codes::CH0803, v.span,
          Cat(what, " must be a non-negative number, such as `1`, `0.5` or `500m`"));
    return std::nullopt;
  }

  int Resource(const std::string& name) {
    auto [it, inserted] = resources_.try_emplace(name, static_cast<int>(state_.resources.size()));
    if (inserted) state_.resources.push_back(name);
    return it->second;
  }

  // Reads a block's lines with one handler per key; a key given twice
  // (other than those in `repeatable`) is CH0804.
  void Settings(const DeclEntry& block, std::string_view what, std::string_view known,
                const absl::flat_hash_map<std::string_view, Handler>& handlers,
                std::initializer_list<std::string_view> repeatable = {}) {
    absl::flat_hash_map<std::string_view, Span> seen;
    for (const DeclEntry& e : block.entries) {
      auto it = e.head.quoted ? handlers.end() : handlers.find(e.head.text);
      if (it == handlers.end()) {
        Error(file_, codes::CH0802, e.head.span, Cat("unknown setting `", e.head.text, "` in ", what),
              Cat("the settings of ", what, " are ", known));
        continue;
      }
      bool once = std::find(repeatable.begin(), repeatable.end(), e.head.text) == repeatable.end();
      if (once) {
        auto [prev, inserted] = seen.try_emplace(e.head.text, e.head.span);
        if (!inserted) {
          Error(file_, codes::CH0804, e.head.span, Cat("`", e.head.text, "` is set twice in ", what),
                Cat("it is first set on ", Where(file_, prev->second, file_)));
          continue;
        }
      }
      it->second(e);
    }
  }

  // Whether `e` is `KEY: VALUE;`; else CH0803.
  bool IsSetting(const DeclEntry& e, std::string_view form) {
    return Shape(e, 0, false, true, false, Cat("setting `", e.head.text, "`"), form);
  }

  // --- the declarations -----------------------------------------------------

  void Sort(size_t file, const DeclEntry& e);
  void ReadScheduler(const Ref& ref);
  void ReadFlavor(const Ref& ref, int index);
  void ReadCohort(size_t index);
  void ReadQueue(size_t index);
  void ReadGroups(const DeclEntry& e, std::string_view what, std::vector<sched::ResourceGroup>* out, ObjectAt* at);
  void ReadPreemption(const DeclEntry& e, std::string_view what, sched::Preemption* out, ObjectAt* at);
  void ReadFungibility(const DeclEntry& e, std::string_view what, sched::FlavorFungibility* out, ObjectAt* at);
  void AddLocalQueue(const std::string& text, Span span, int queue);
  void Report(const ObjectAt& at, const check::ConfigFault& fault);
  const char* CodeOf(check::FaultKind kind) const;

  const std::vector<DeclarationFile>& files_;
  const DeclareOptions& options_;
  sched::State& state_;
  size_t file_ = 0;  // the file being read
  bool failed_ = false;
  bool any_ = false;

  std::vector<Ref> schedulers_, flavors_, classes_, cohorts_, queues_;
  std::vector<Ref> local_order_;  // queues and top-level local queues, in source order
  std::vector<ObjectAt> cohort_at_, queue_at_;
  std::vector<CapacityAt> capacity_at_;  // where each of state_.capacities is
  absl::flat_hash_map<std::string, int> flavor_index_, class_index_, cohort_index_, queue_index_, resources_;
  absl::flat_hash_map<std::string, Ref> local_seen_;
};

void Declarer::Sort(size_t file, const DeclEntry& e) {
  any_ = true;
  const std::string& word = e.head.text;
  if (!e.head.quoted) {
    if (word == "scheduler") {
      if (Shape(e, 0, false, false, true, "`scheduler` block", "scheduler { fair_sharing: true; }")) {
        schedulers_.push_back({file, &e});
      }
      return;
    }
    if (word == "flavor") {
      if (Shape(e, 1, true, false, true, "`flavor` declaration", "flavor \"NAME\";")) flavors_.push_back({file, &e});
      return;
    }
    if (word == "priority_class") {
      if (Shape(e, 1, false, true, false, "`priority_class` declaration", "priority_class \"NAME\": VALUE;")) {
        classes_.push_back({file, &e});
      }
      return;
    }
    if (word == "cohort") {
      if (Shape(e, 1, true, false, true, "`cohort` declaration", "cohort \"NAME\" { parent: \"PARENT\"; }")) {
        cohorts_.push_back({file, &e});
      }
      return;
    }
    if (word == "queue") {
      if (Shape(e, 1, true, false, true, "`queue` declaration", "queue \"NAME\" { cohort: \"COHORT\"; ... }")) {
        queues_.push_back({file, &e});
        local_order_.push_back({file, &e});
      }
      return;
    }
    if (word == "local_queue") {
      if (Shape(e, 1, false, true, false, "`local_queue` declaration", "local_queue \"NAMESPACE/NAME\": QUEUE;")) {
        local_order_.push_back({file, &e});
      }
      return;
    }
  }
  Error(file, codes::CH0802, e.head.span, Cat("unknown declaration `", word, "`"),
        "a .charter file declares `scheduler`, `flavor`, `priority_class`, `cohort`, `queue` and `local_queue`, "
        "beside Cedar policies");
}

void Declarer::ReadScheduler(const Ref& ref) {
  file_ = ref.file;
  const std::string what = "the `scheduler` block";
  absl::flat_hash_map<std::string_view, Handler> handlers;
  handlers["fair_sharing"] = [&](const DeclEntry& e) {
    if (!IsSetting(e, "fair_sharing: true;")) return;
    if (std::optional<bool> b = BoolValue(e.value, "fair_sharing")) state_.engine.fair_sharing = *b;
  };
  handlers["fair_sharing_strategies"] = [&](const DeclEntry& e) {
    if (!IsSetting(e, "fair_sharing_strategies: [LessThanOrEqualToFinalShare, LessThanInitialShare];")) return;
    if (e.value.kind != DeclValue::Kind::kList) {
      Error(file_, codes::CH0803, e.value.span, "`fair_sharing_strategies` takes a list",
            "write `[LessThanOrEqualToFinalShare, LessThanInitialShare]`");
      return;
    }
    std::vector<sched::FairSharingStrategy> list;
    for (const DeclValue& item : e.value.items) {
      std::optional<sched::FairSharingStrategy> s = WordValue<sched::FairSharingStrategy>(
          item, "fair_sharing_strategies",
          {{"LessThanOrEqualToFinalShare", sched::FairSharingStrategy::kLessThanOrEqualToFinalShare},
           {"LessThanInitialShare", sched::FairSharingStrategy::kLessThanInitialShare}});
      if (!s.has_value()) return;
      list.push_back(*s);
    }
    if (auto fault = check::CheckStrategies(list)) {
      Error(file_, CodeOf(fault->kind), e.value.span, fault->message);
      return;
    }
    state_.engine.fair_sharing_strategies = std::move(list);
  };
  Settings(*ref.entry, what, "`fair_sharing` and `fair_sharing_strategies`", handlers);
}

// `flavor F;`, or `flavor F { capacity { R: QUANTITY; ... } }`: what the
// flavor's nodes hold, which Kueue does not know and the checks of the whole
// configuration compare the nominal quotas with.
void Declarer::ReadFlavor(const Ref& ref, int index) {
  if (ref.entry->body != DeclEntry::Body::kBlock) return;
  file_ = ref.file;
  const std::string what = Cat("resource flavor `", state_.flavors[index], "`");
  absl::flat_hash_map<std::string_view, Handler> handlers;
  handlers["capacity"] = [&](const DeclEntry& e) {
    if (!Shape(e, 0, false, false, true, "`capacity` block", "capacity { \"RESOURCE\": QUANTITY; }")) return;
    absl::flat_hash_map<std::string, Span> seen;
    for (const DeclEntry& q : e.entries) {
      if (!Shape(q, 0, false, true, false, "capacity", "\"RESOURCE\": QUANTITY;")) continue;
      auto [prev, inserted] = seen.try_emplace(q.head.text, q.head.span);
      if (!inserted) {
        Error(file_, codes::CH0804, q.head.span, Cat("the capacity of `", q.head.text, "` is given twice in ", what),
              Cat("it is first given on ", Where(file_, prev->second, file_)));
        continue;
      }
      sched::FlavorCapacity c;
      c.flavor = index;
      c.resource = Resource(q.head.text);
      std::optional<sched::Quantity> amount =
          QuantityValue(q.value, c.resource, Cat("the `", q.head.text, "` capacity of ", what));
      if (!amount.has_value()) continue;
      c.amount = *amount;
      state_.capacities.push_back(c);
      capacity_at_.push_back({file_, HeadSpan(*ref.entry), q.head.span, q.value.span});
    }
  };
  Settings(*ref.entry, what, "`capacity`", handlers);
}

void Declarer::ReadGroups(const DeclEntry& e, std::string_view what, std::vector<sched::ResourceGroup>* out,
                          ObjectAt* at) {
  const std::string form = "resources \"R1\", \"R2\" { flavor \"F\" { \"R1\": QUANTITY; \"R2\": QUANTITY; } }";
  if (!Shape(e, -1, true, false, true, "resource group", form)) {
    at->ok = false;
    return;
  }
  sched::ResourceGroup group;
  GroupAt gat;
  gat.head = HeadSpan(e);
  for (const DeclEntry::Word& w : e.names) {
    group.covered_resources.push_back(Resource(w.text));
    gat.covered.push_back(w.span);
  }
  for (const DeclEntry& f : e.entries) {
    if (f.head.quoted || f.head.text != "flavor") {
      Error(file_, codes::CH0802, f.head.span, Cat("unknown entry `", f.head.text, "` in a resource group of ", what),
            "a resource group lists its flavors: `flavor \"F\" { \"R\": QUANTITY; }`");
      at->ok = false;
      continue;
    }
    if (!Shape(f, 1, true, false, true, "flavor of a resource group", "flavor \"F\" { \"R\": QUANTITY; }")) {
      at->ok = false;
      continue;
    }
    const DeclEntry::Word& name = f.names[0];
    auto it = flavor_index_.find(name.text);
    if (it == flavor_index_.end()) {
      Error(file_, codes::CH0805, name.span, Cat(what, " uses unknown resource flavor `", name.text, "`"),
            Cat("declare it: `flavor \"", name.text, "\";`"));
      at->ok = false;
      continue;
    }
    sched::FlavorQuotas fq;
    fq.flavor = it->second;
    FlavorAt fat;
    fat.name = name.span;
    const std::string fwhat = Cat("flavor `", name.text, "` of ", what);
    for (const DeclEntry& q : f.entries) {
      if (!Shape(q, 0, false, true, false, "quota", "\"RESOURCE\": NOMINAL borrow LIMIT lend LIMIT;")) {
        at->ok = false;
        continue;
      }
      sched::ResourceQuota rq;
      rq.resource = Resource(q.head.text);
      QuotaAt qat;
      qat.resource = q.head.span;
      qat.nominal = q.value.span;
      qat.value = q.modifiers.empty() ? q.value.span : Join(q.value.span, q.modifiers.back().value.span);
      const std::string rwhat = Cat("the `", q.head.text, "` quota of ", fwhat);
      std::optional<sched::Quantity> nominal = QuantityValue(q.value, rq.resource, Cat("the nominal ", rwhat.substr(4)));
      if (!nominal.has_value()) {
        at->ok = false;
        continue;
      }
      rq.nominal = *nominal;
      bool ok = true;
      for (const DeclEntry::Modifier& m : q.modifiers) {
        const bool borrow = m.word.text == "borrow";
        if (!borrow && m.word.text != "lend") {
          Error(file_, codes::CH0802, m.word.span, Cat("unknown quota limit `", m.word.text, "`"),
                "a quota is `NOMINAL`, then optionally `borrow LIMIT` and `lend LIMIT`");
          ok = false;
          continue;
        }
        std::optional<sched::Quantity>& limit = borrow ? rq.borrowing_limit : rq.lending_limit;
        if (limit.has_value()) {
          Error(file_, codes::CH0804, m.word.span, Cat("`", m.word.text, "` is given twice in ", rwhat));
          ok = false;
          continue;
        }
        std::optional<sched::Quantity> value =
            QuantityValue(m.value, rq.resource, Cat(borrow ? "the borrowing limit in " : "the lending limit in ", rwhat));
        if (!value.has_value()) {
          ok = false;
          continue;
        }
        limit = *value;
        (borrow ? qat.borrow : qat.lend) = Join(m.word.span, m.value.span);
        (borrow ? qat.borrow_value : qat.lend_value) = m.value.span;
      }
      if (!ok) {
        at->ok = false;
        continue;
      }
      fq.resources.push_back(rq);
      fat.quotas.push_back(qat);
    }
    group.flavors.push_back(std::move(fq));
    gat.flavors.push_back(std::move(fat));
  }
  out->push_back(std::move(group));
  at->groups.push_back(std::move(gat));
}

void Declarer::ReadCohort(size_t index) {
  const Ref& ref = cohorts_[index];
  file_ = ref.file;
  sched::Cohort& cohort = state_.cohorts[index];
  ObjectAt& at = cohort_at_[index];
  const std::string what = Cat("cohort `", cohort.name, "`");
  absl::flat_hash_map<std::string_view, Handler> handlers;
  handlers["parent"] = [&](const DeclEntry& e) {
    if (!IsSetting(e, "parent: \"COHORT\";")) return void(at.ok = false);
    std::optional<std::string> name = NameValue(e.value, "parent");
    if (!name.has_value()) return void(at.ok = false);
    at.parent = e.value.span;
    auto it = cohort_index_.find(*name);
    if (it == cohort_index_.end()) {
      Error(file_, codes::CH0805, e.value.span, Cat(what, " names an unknown parent cohort `", *name, "`"),
            Cat("declare it: `cohort \"", *name, "\";`"));
      return void(at.ok = false);
    }
    cohort.parent = it->second;
  };
  handlers["fair_weight"] = [&](const DeclEntry& e) {
    if (!IsSetting(e, "fair_weight: 1;")) return void(at.ok = false);
    std::optional<double> w = WeightValue(e.value, Cat("the fair weight of ", what));
    if (!w.has_value()) return void(at.ok = false);
    cohort.fair_weight = *w;
    at.weight = e.value.span;
  };
  handlers["resources"] = [&](const DeclEntry& e) { ReadGroups(e, what, &cohort.resource_groups, &at); };
  Settings(*ref.entry, what, "`parent`, `fair_weight` and `resources`", handlers, {"resources"});
}

void Declarer::ReadPreemption(const DeclEntry& e, std::string_view what, sched::Preemption* out, ObjectAt* at) {
  if (!Shape(e, 0, false, false, true, "`preemption` block", "preemption { within_queue: LowerPriority; }")) {
    at->ok = false;
    return;
  }
  at->preemption = e.head.span;
  const std::string pwhat = Cat("the preemption of ", what);
  auto policy = [&](const DeclEntry& s, std::string_view key, sched::PreemptionPolicy* p) {
    if (!IsSetting(s, Cat(key, ": LowerPriority;"))) return void(at->ok = false);
    auto v = WordValue<sched::PreemptionPolicy>(s.value, key,
                                                 {{"Never", sched::PreemptionPolicy::kNever},
                                                  {"LowerPriority", sched::PreemptionPolicy::kLowerPriority},
                                                  {"LowerOrNewerEqualPriority",
                                                   sched::PreemptionPolicy::kLowerOrNewerEqualPriority},
                                                  {"Any", sched::PreemptionPolicy::kAny}});
    if (!v.has_value()) return void(at->ok = false);
    *p = *v;
  };
  absl::flat_hash_map<std::string_view, Handler> handlers;
  handlers["within_queue"] = [&](const DeclEntry& s) { policy(s, "within_queue", &out->within_cluster_queue); };
  handlers["reclaim_within_cohort"] = [&](const DeclEntry& s) {
    policy(s, "reclaim_within_cohort", &out->reclaim_within_cohort);
  };
  handlers["borrow_within_cohort"] = [&](const DeclEntry& s) {
    if (!IsSetting(s, "borrow_within_cohort: LowerPriority;")) return void(at->ok = false);
    auto v = WordValue<sched::PreemptionPolicy>(
        s.value, "borrow_within_cohort",
        {{"Never", sched::PreemptionPolicy::kNever}, {"LowerPriority", sched::PreemptionPolicy::kLowerPriority}});
    if (!v.has_value()) return void(at->ok = false);
    out->borrow_within_cohort = *v;
    at->preemption = s.span;
  };
  handlers["max_priority_threshold"] = [&](const DeclEntry& s) {
    if (!IsSetting(s, "max_priority_threshold: 100;")) return void(at->ok = false);
    if (s.value.kind == DeclValue::Kind::kNumber) {
      std::optional<int64_t> n = IntegerValue(s.value, Cat("`max_priority_threshold` of ", what));
      if (!n.has_value()) return void(at->ok = false);
      out->max_priority_threshold = *n;
      return;
    }
    // A priority class stands for its value.
    std::optional<std::string> name = NameValue(s.value, "max_priority_threshold");
    if (!name.has_value()) return void(at->ok = false);
    auto it = class_index_.find(*name);
    if (it == class_index_.end()) {
      Error(file_, codes::CH0805, s.value.span,
            Cat("`max_priority_threshold` of ", what, " names an unknown priority class `", *name, "`"),
            Cat("declare it: `priority_class \"", *name, "\": VALUE;`, or give the threshold as an integer"));
      return void(at->ok = false);
    }
    out->max_priority_threshold = state_.priority_classes[it->second].value;
  };
  Settings(e, pwhat, "`within_queue`, `reclaim_within_cohort`, `borrow_within_cohort` and `max_priority_threshold`",
           handlers);
}

void Declarer::ReadFungibility(const DeclEntry& e, std::string_view what, sched::FlavorFungibility* out,
                               ObjectAt* at) {
  if (!Shape(e, 0, false, false, true, "`fungibility` block", "fungibility { when_can_borrow: TryNextFlavor; }")) {
    at->ok = false;
    return;
  }
  const std::string fwhat = Cat("the flavor fungibility of ", what);
  auto policy = [&](const DeclEntry& s, std::string_view key, std::string_view alias, sched::FungibilityPolicy* p) {
    if (!IsSetting(s, Cat(key, ": TryNextFlavor;"))) return void(at->ok = false);
    auto v = WordValue<sched::FungibilityPolicy>(s.value, key,
                                                  {{"MayStopSearch", sched::FungibilityPolicy::kMayStopSearch},
                                                   {"TryNextFlavor", sched::FungibilityPolicy::kTryNextFlavor},
                                                   {alias, sched::FungibilityPolicy::kMayStopSearch}});
    if (!v.has_value()) return void(at->ok = false);
    *p = *v;
  };
  absl::flat_hash_map<std::string_view, Handler> handlers;
  handlers["when_can_borrow"] = [&](const DeclEntry& s) {
    policy(s, "when_can_borrow", "Borrow", &out->when_can_borrow);
  };
  handlers["when_can_preempt"] = [&](const DeclEntry& s) {
    policy(s, "when_can_preempt", "Preempt", &out->when_can_preempt);
  };
  handlers["preference"] = [&](const DeclEntry& s) {
    if (!IsSetting(s, "preference: BorrowingOverPreemption;")) return void(at->ok = false);
    auto v = WordValue<sched::FungibilityPreference>(
        s.value, "preference",
        {{"BorrowingOverPreemption", sched::FungibilityPreference::kBorrowingOverPreemption},
         {"PreemptionOverBorrowing", sched::FungibilityPreference::kPreemptionOverBorrowing}});
    if (!v.has_value()) return void(at->ok = false);
    out->preference = *v;
    at->preference = s.span;
  };
  Settings(e, fwhat, "`when_can_borrow`, `when_can_preempt` and `preference`", handlers);
}

void Declarer::ReadQueue(size_t index) {
  const Ref& ref = queues_[index];
  file_ = ref.file;
  sched::ClusterQueue& cq = state_.cluster_queues[index];
  ObjectAt& at = queue_at_[index];
  const std::string what = Cat("cluster queue `", cq.name, "`");
  absl::flat_hash_map<std::string_view, Handler> handlers;
  handlers["cohort"] = [&](const DeclEntry& e) {
    if (!IsSetting(e, "cohort: \"COHORT\";")) return void(at.ok = false);
    std::optional<std::string> name = NameValue(e.value, "cohort");
    if (!name.has_value()) return void(at.ok = false);
    at.parent = e.value.span;
    auto it = cohort_index_.find(*name);
    if (it == cohort_index_.end()) {
      Error(file_, codes::CH0805, e.value.span, Cat(what, " names an unknown cohort `", *name, "`"),
            Cat("declare it: `cohort \"", *name, "\";`"));
      return void(at.ok = false);
    }
    cq.cohort = it->second;
  };
  handlers["implements"] = [&](const DeclEntry& e) {
    if (!IsSetting(e, "implements: Namespace::Type::\"id\";")) return void(at.ok = false);
    if (e.value.kind != DeclValue::Kind::kEntity) {
      Error(file_, codes::CH0803, e.value.span, "`implements` takes an entity reference",
            "write the entity of the typed model the queue stands for, such as "
            "`Governance::Allocation::\"vision-west\"`");
      return void(at.ok = false);
    }
    cq.implements = Cat(e.value.text, "::\"");
    at.implements = e.value.span;
    AppendCedarEscaped(&cq.implements, e.value.id);
    cq.implements += '"';
  };
  handlers["queueing"] = [&](const DeclEntry& e) {
    if (!IsSetting(e, "queueing: StrictFIFO;")) return void(at.ok = false);
    auto v = WordValue<sched::QueueingStrategy>(e.value, "queueing",
                                                {{"BestEffortFIFO", sched::QueueingStrategy::kBestEffortFIFO},
                                                 {"StrictFIFO", sched::QueueingStrategy::kStrictFIFO}});
    if (!v.has_value()) return void(at.ok = false);
    cq.queueing_strategy = *v;
  };
  handlers["fair_weight"] = [&](const DeclEntry& e) {
    if (!IsSetting(e, "fair_weight: 1;")) return void(at.ok = false);
    std::optional<double> w = WeightValue(e.value, Cat("the fair weight of ", what));
    if (!w.has_value()) return void(at.ok = false);
    cq.fair_weight = *w;
    at.weight = e.value.span;
  };
  handlers["preemption"] = [&](const DeclEntry& e) { ReadPreemption(e, what, &cq.preemption, &at); };
  handlers["fungibility"] = [&](const DeclEntry& e) { ReadFungibility(e, what, &cq.flavor_fungibility, &at); };
  handlers["resources"] = [&](const DeclEntry& e) { ReadGroups(e, what, &cq.resource_groups, &at); };
  // Local queues are added in source order with the top-level ones, later.
  handlers["local_queue"] = [&](const DeclEntry& e) {
    if (!Shape(e, 1, true, false, false, "`local_queue` in a queue", "local_queue \"NAMESPACE/NAME\";")) {
      at.ok = false;
    }
  };
  Settings(*ref.entry, what,
           "`cohort`, `implements`, `queueing`, `fair_weight`, `preemption`, `fungibility`, `resources` and "
           "`local_queue`",
           handlers, {"resources", "local_queue"});
}

void Declarer::AddLocalQueue(const std::string& text, Span span, int queue) {
  sched::LocalQueue lq;
  size_t slash = text.find('/');
  if (slash == std::string::npos) {
    lq.name = text;
  } else {
    lq.namespace_name = text.substr(0, slash);
    lq.name = text.substr(slash + 1);
  }
  lq.cluster_queue = queue;
  if (auto fault = check::CheckLocalQueueName(lq)) {
    Error(file_, CodeOf(fault->kind), span, fault->message, "write `\"NAMESPACE/NAME\"`, or `\"NAME\"` alone");
    return;
  }
  auto [prev, inserted] = local_seen_.try_emplace(Cat(lq.namespace_name, "/", lq.name), Ref{file_, nullptr});
  if (!inserted) {
    Error(file_, codes::CH0804, span, Cat("local queue `", lq.namespace_name, "/", lq.name, "` is declared twice"));
    return;
  }
  state_.local_queues.push_back(std::move(lq));
}

const char* Declarer::CodeOf(check::FaultKind kind) const {
  switch (kind) {
    case check::FaultKind::kDuplicate: return codes::CH0804;
    case check::FaultKind::kUnknown: return codes::CH0805;
    case check::FaultKind::kCycle: return codes::CH0806;
    case check::FaultKind::kLendingAboveNominal: return codes::CH0807;
    case check::FaultKind::kQuantity: return codes::CH0801;
    case check::FaultKind::kRefused: break;
  }
  return codes::CH0808;
}

// A fault Kueue's rules find in one object, at its place in the text.
void Declarer::Report(const ObjectAt& at, const check::ConfigFault& f) {
  using check::FaultField;
  Span span = at.head;
  auto pick = [](Span s, Span fallback) { return s.end > 0 ? s : fallback; };
  const GroupAt* g = f.group >= 0 && static_cast<size_t>(f.group) < at.groups.size() ? &at.groups[f.group] : nullptr;
  const FlavorAt* fl = g != nullptr && f.flavor >= 0 && static_cast<size_t>(f.flavor) < g->flavors.size()
                           ? &g->flavors[f.flavor]
                           : nullptr;
  const QuotaAt* q = fl != nullptr && f.quota >= 0 && static_cast<size_t>(f.quota) < fl->quotas.size()
                         ? &fl->quotas[f.quota]
                         : nullptr;
  switch (f.field) {
    case FaultField::kParent: span = pick(at.parent, at.head); break;
    case FaultField::kFairWeight: span = pick(at.weight, at.head); break;
    case FaultField::kPreemption: span = pick(at.preemption, at.head); break;
    case FaultField::kPreference: span = pick(at.preference, at.head); break;
    case FaultField::kGroup:
      if (g != nullptr) span = g->head;
      break;
    case FaultField::kCoveredResource:
      if (g != nullptr && f.item >= 0 && static_cast<size_t>(f.item) < g->covered.size()) span = g->covered[f.item];
      break;
    case FaultField::kFlavor:
    case FaultField::kQuotas:
      if (fl != nullptr) span = fl->name;
      break;
    case FaultField::kQuotaResource:
      if (q != nullptr) span = q->resource;
      break;
    case FaultField::kQuota:
      if (q != nullptr) span = q->value;
      break;
    case FaultField::kNominal:
      if (q != nullptr) span = q->nominal;
      break;
    case FaultField::kBorrowingLimit:
      if (q != nullptr) span = pick(q->borrow, q->value);
      break;
    case FaultField::kLendingLimit:
      if (q != nullptr) span = pick(q->lend, q->value);
      break;
    default: break;
  }
  Error(at.file, CodeOf(f.kind), span, f.message);
}

bool Declarer::Run() {
  for (size_t f = 0; f < files_.size(); ++f) {
    if (files_[f].declarations == nullptr) continue;
    for (const DeclEntry& e : *files_[f].declarations) Sort(f, e);
  }
  if (!any_) return false;
  // Names first, so that declarations refer to each other in any order.
  auto enter = [&](const std::vector<Ref>& refs, std::string_view kind,
                   absl::flat_hash_map<std::string, int>* index, auto add) {
    absl::flat_hash_map<std::string, Ref> first;
    for (const Ref& ref : refs) {
      const DeclEntry::Word& name = ref.entry->names[0];
      if (name.text.empty()) {
        Error(ref.file, codes::CH0803, name.span, Cat("a ", kind, " needs a name"));
        continue;
      }
      auto [it, inserted] = first.try_emplace(name.text, ref);
      if (!inserted) {
        Error(ref.file, codes::CH0804, HeadSpan(*ref.entry), Cat(kind, " `", name.text, "` is declared twice"),
              Cat("it is first declared on ", Where(it->second.file, HeadSpan(*it->second.entry), ref.file)));
        continue;
      }
      index->emplace(name.text, static_cast<int>(index->size()));
      add(ref);
    }
  };
  if (schedulers_.size() > 1) {
    const Ref& second = schedulers_[1];
    Error(second.file, codes::CH0804, second.entry->head.span, "the scheduler is configured twice",
          Cat("the first `scheduler` block is on ",
              Where(schedulers_[0].file, schedulers_[0].entry->head.span, second.file)));
  }
  if (!schedulers_.empty()) ReadScheduler(schedulers_[0]);
  enter(flavors_, "resource flavor", &flavor_index_, [&](const Ref& ref) {
    state_.flavors.push_back(ref.entry->names[0].text);
    ReadFlavor(ref, static_cast<int>(state_.flavors.size() - 1));
  });
  std::vector<Ref> classes, cohorts, queues;
  enter(classes_, "priority class", &class_index_, [&](const Ref& ref) {
    file_ = ref.file;
    sched::PriorityClass pc;
    pc.name = ref.entry->names[0].text;
    if (std::optional<int64_t> v = IntegerValue(ref.entry->value, Cat("the value of priority class `", pc.name, "`"))) {
      pc.value = *v;
    }
    state_.priority_classes.push_back(std::move(pc));
  });
  enter(cohorts_, "cohort", &cohort_index_, [&](const Ref& ref) {
    sched::Cohort c;
    c.name = ref.entry->names[0].text;
    state_.cohorts.push_back(std::move(c));
    cohorts.push_back(ref);
  });
  enter(queues_, "cluster queue", &queue_index_, [&](const Ref& ref) {
    sched::ClusterQueue q;
    q.name = ref.entry->names[0].text;
    state_.cluster_queues.push_back(std::move(q));
    queues.push_back(ref);
  });
  cohorts_ = std::move(cohorts);
  queues_ = std::move(queues);
  // Each object, then Kueue's rules over it (not over an object that had a
  // fault of its own, whose model is incomplete).
  check::QuotaTotals totals;
  cohort_at_.resize(cohorts_.size());
  for (size_t c = 0; c < cohorts_.size(); ++c) {
    ObjectAt& at = cohort_at_[c];
    at.file = cohorts_[c].file;
    at.head = HeadSpan(*cohorts_[c].entry);
    ReadCohort(c);
    const sched::Cohort& cohort = state_.cohorts[c];
    if (!at.ok) continue;
    const std::string what = Cat("cohort `", cohort.name, "`");
    if (auto f = check::CheckFairWeight(cohort.fair_weight, what)) {
      Report(at, *f);
    } else if (auto g = check::CheckResourceGroups(state_, cohort.resource_groups, what, false, cohort.parent >= 0,
                                                   &totals)) {
      Report(at, *g);
    }
  }
  int in_cycle = -1;
  if (std::string path = check::CohortCyclePath(state_.cohorts, &in_cycle); !path.empty()) {
    check::ConfigFault f;
    f.kind = check::FaultKind::kCycle;
    f.field = check::FaultField::kParent;
    f.message = Cat("cohort `", state_.cohorts[in_cycle].name, "` is in a cycle of parents: ", path);
    Report(cohort_at_[in_cycle], f);
  }
  queue_at_.resize(queues_.size());
  for (size_t q = 0; q < queues_.size(); ++q) {
    ObjectAt& at = queue_at_[q];
    at.file = queues_[q].file;
    at.head = HeadSpan(*queues_[q].entry);
    ReadQueue(q);
    const sched::ClusterQueue& cq = state_.cluster_queues[q];
    if (!at.ok) continue;
    const std::string what = Cat("cluster queue `", cq.name, "`");
    std::optional<check::ConfigFault> f = check::CheckPreemption(cq.preemption, what);
    if (!f) f = check::CheckFungibility(cq.flavor_fungibility, what);
    if (!f) f = check::CheckFairWeight(cq.fair_weight, what);
    if (!f) f = check::CheckResourceGroups(state_, cq.resource_groups, what, true, cq.cohort >= 0, &totals);
    if (f) Report(at, *f);
  }
  // Local queues, in the order they are written.
  for (const Ref& ref : local_order_) {
    file_ = ref.file;
    if (ref.entry->head.text == "queue") {
      auto it = queue_index_.find(ref.entry->names[0].text);
      if (it == queue_index_.end()) continue;
      // (A second declaration of the queue is an error already.)
      if (queues_[it->second].entry != ref.entry) continue;
      for (const DeclEntry& e : ref.entry->entries) {
        if (e.head.quoted || e.head.text != "local_queue" || e.names.size() != 1 ||
            e.body != DeclEntry::Body::kBare) {
          continue;
        }
        AddLocalQueue(e.names[0].text, e.names[0].span, it->second);
      }
      continue;
    }
    std::optional<std::string> target = NameValue(ref.entry->value, "local_queue");
    if (!target.has_value()) continue;
    auto it = queue_index_.find(*target);
    if (it == queue_index_.end()) {
      Error(ref.file, codes::CH0805, ref.entry->value.span,
            Cat("local queue `", ref.entry->names[0].text, "` feeds an unknown cluster queue `", *target, "`"),
            Cat("declare it: `queue \"", *target, "\" { ... }`"));
      continue;
    }
    AddLocalQueue(ref.entry->names[0].text, ref.entry->names[0].span, it->second);
  }
  if (failed_) return true;
  // The whole configuration, with what only the whole shows (the quota
  // cells); a fault the rules above did not find here is reported at the
  // first declaration.
  if (std::optional<check::PlacedFault> fault = check::CheckConfig(state_, options_.max_quota_cells)) {
    for (size_t f = 0; f < files_.size(); ++f) {
      if (files_[f].declarations == nullptr || files_[f].declarations->empty()) continue;
      Error(f, CodeOf(fault->fault.kind), HeadSpan(files_[f].declarations->front()), fault->fault.message);
      break;
    }
    return true;
  }
  // What only the whole shows: capacities, borrowing and lending across a
  // cohort tree, units.
  CheckWhole(files_, state_, cohort_at_, queue_at_, capacity_at_);
  return true;
}

}  // namespace

std::string PlaceOf(const std::vector<DeclarationFile>& files, size_t file, Span span, size_t from) {
  const SourceFile* source = files[file].source;
  if (source == nullptr) return "elsewhere";
  SourceFile::Position p = source->PositionOf(span.begin);
  if (file == from) return Cat("line ", p.line);
  return Cat(source->name(), ":", p.line, ":", p.column);
}

bool Declare(const std::vector<DeclarationFile>& files, const DeclareOptions& options,
             ::charter::schedule::State* out) {
  Declarer declarer(files, options, out);
  const bool any = declarer.Run();
  if (options.queue_places != nullptr) *options.queue_places = declarer.TakeQueuePlaces();
  return any;
}

}  // namespace charter::internal
