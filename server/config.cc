// The server's configuration file (docs/server.md, "Configuration"): JSON,
// every member checked, an unknown one refused by name.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <charconv>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter_support/strings.h"
#include "charter/json.h"
#include "server.h"

namespace charter::server {
namespace {

using support::Cat;
using support::CatAppend;

using support::S;

class ConfigReader {
 public:
  ConfigReader(std::string path, std::string_view text) : path_(std::move(path)), text_(text) {}

  absl::Status Fail(const JsonValue& v, std::string_view what) const {
    return absl::InvalidArgumentError(Cat(Where(v), ": ", S(what)));
  }
  // "path:line:col" of a value.
  std::string Where(const JsonValue& v) const { return Cat(path_, ":", LineColumn(v.offset())); }

  // `join.users` or `join.namespaces`: names to entity references
  // {"type": T, "id": I}.
  absl::Status Joins(const JsonValue& v, std::string_view name,
                     std::map<std::string, GovernanceJoin, std::less<>>* out) const {
    if (!v.is_object()) {
      return Fail(v, Cat("`", S(name), "` must be an object of names to entities {\"type\": ..., \"id\": ...}"));
    }
    for (size_t i = 0; i < v.size(); ++i) {
      std::string key = S(v.key(i));
      JsonValue e = v.member(i);
      if (key.empty()) return Fail(e, Cat("`", S(name), "`: a name is empty"));
      std::optional<JsonValue> type = e.is_object() ? e.Find("type") : std::nullopt;
      std::optional<JsonValue> id = e.is_object() ? e.Find("id") : std::nullopt;
      if (!e.is_object() || e.size() != 2 || !type || !id || !type->is_string() || !id->is_string() ||
          type->as_string().empty()) {
        return Fail(e, Cat("`", S(name), "` of `", key,
                           "`: expected an entity {\"type\": \"Governance::...\", \"id\": \"...\"}"));
      }
      GovernanceJoin join{{S(type->as_string()), S(id->as_string())}, Where(e)};
      if (!out->emplace(key, std::move(join)).second) {
        return Fail(e, Cat("`", S(name), "`: `", key, "` is given twice"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Known(const JsonValue& object, std::string_view where,
                     std::initializer_list<std::string_view> keys) const {
    if (!object.is_object()) return Fail(object, Cat(S(where), " must be an object"));
    for (size_t i = 0; i < object.size(); ++i) {
      bool known = false;
      for (std::string_view k : keys) known = known || object.key(i) == k;
      if (!known) {
        std::string list;
        for (std::string_view k : keys) CatAppend(&list, list.empty() ? "" : ", ", S(k));
        return Fail(object.member(i), Cat("unknown member `", S(object.key(i)), "` in ", S(where),
                                                   " (it has ", list, ")"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> Int(const JsonValue& v, std::string_view name, int64_t lo, int64_t hi) const {
    if (v.is_number()) {
      std::string_view rest = text_.substr(v.offset());
      int64_t n = 0;
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
      bool whole = ec == std::errc() && (end == rest.data() + rest.size() ||
                                         std::string_view(".eE").find(*end) == std::string_view::npos);
      if (whole && n >= lo && n <= hi) return n;
    }
    return Fail(v, Cat("`", S(name), "` must be a whole number from ", lo, " to ", hi));
  }

  absl::StatusOr<std::string> Str(const JsonValue& v, std::string_view name) const {
    if (!v.is_string() || v.as_string().empty()) return Fail(v, Cat("`", S(name), "` must be a non-empty string"));
    return S(v.as_string());
  }

  absl::StatusOr<std::vector<std::string>> Strings(const JsonValue& v, std::string_view name) const {
    if (!v.is_array()) return Fail(v, Cat("`", S(name), "` must be an array of strings"));
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) {
      absl::StatusOr<std::string> s = Str(v.at(i), name);
      if (!s.ok()) return s.status();
      out.push_back(*std::move(s));
    }
    return out;
  }

  // Strings of which none is given twice (`why` says what a repeat would do).
  absl::StatusOr<std::vector<std::string>> DistinctStrings(const JsonValue& v, std::string_view name,
                                                          std::string_view why) const {
    absl::StatusOr<std::vector<std::string>> out = Strings(v, name);
    if (!out.ok()) return out;
    std::set<std::string_view> seen;
    for (size_t i = 0; i < out->size(); ++i) {
      if (!seen.insert((*out)[i]).second) {
        return Fail(v.at(i), Cat("`", S(name), "`: `", (*out)[i], "` is given twice (", S(why), ")"));
      }
    }
    return out;
  }

 private:
  std::string LineColumn(uint32_t offset) const {
    int line = 1, column = 1;
    for (uint32_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') ++line, column = 1;
      else if ((static_cast<unsigned char>(text_[i]) & 0xc0) != 0x80) ++column;
    }
    return Cat(line, ":", column);
  }
  std::string path_;
  std::string_view text_;
};

#define CONFIG_ASSIGN(lhs, expr)                   \
  {                                                \
    auto value_or = (expr);                        \
    if (!value_or.ok()) return value_or.status();  \
    lhs = *std::move(value_or);                    \
  }

}  // namespace

absl::Status LoadConfig(const std::string& path, ServerOptions* options) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(Cat(path, ": is a directory, not a configuration file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(Cat(path, ": cannot open the configuration: ", std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  if (text.size() > (size_t{1} << 20)) return absl::InvalidArgumentError(Cat(path, ": larger than 1 MiB"));
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(text);
  if (!doc.ok()) return absl::InvalidArgumentError(Cat(path, ":", S(doc.status().message())));
  ConfigReader r(path, text);
  JsonValue root = doc->root();
  if (absl::Status s = r.Known(root, "the configuration", {"mapping", "reasons", "decisionLog", "limits", "watch", "join", "enforcement"});
      !s.ok()) {
    return s;
  }
  if (std::optional<JsonValue> m = root.Find("mapping")) {
    if (absl::Status s = r.Known(*m, "`mapping`", {"accelerators", "queueLabel", "priorityLabel"}); !s.ok()) return s;
    if (auto v = m->Find("accelerators")) {
      CONFIG_ASSIGN(options->mapping.accelerators,
                    r.DistinctStrings(*v, "accelerators", "its requests would count twice in `gpus`"));
    }
    if (auto v = m->Find("queueLabel")) { CONFIG_ASSIGN(options->mapping.queue_label, r.Str(*v, "queueLabel")); }
    if (auto v = m->Find("priorityLabel")) { CONFIG_ASSIGN(options->mapping.priority_label, r.Str(*v, "priorityLabel")); }
  }
  if (std::optional<JsonValue> j = root.Find("join")) {
    if (absl::Status s = r.Known(*j, "`join`", {"users", "namespaces"}); !s.ok()) return s;
    if (auto v = j->Find("users")) {
      if (absl::Status s = r.Joins(*v, "join.users", &options->mapping.join.users); !s.ok()) return s;
    }
    if (auto v = j->Find("namespaces")) {
      if (absl::Status s = r.Joins(*v, "join.namespaces", &options->mapping.join.namespaces); !s.ok()) return s;
    }
  }
  if (std::optional<JsonValue> v = root.Find("enforcement")) {
    std::string mode;
    CONFIG_ASSIGN(mode, r.Str(*v, "enforcement"));
    absl::StatusOr<Enforcement> parsed = ParseEnforcement(mode);
    if (!parsed.ok()) return r.Fail(*v, Cat("`enforcement`: ", S(parsed.status().message())));
    options->enforcement = *parsed;
  }
  if (std::optional<JsonValue> reasons = root.Find("reasons")) {
    if (!reasons->is_object()) return r.Fail(*reasons, "`reasons` must be an object of policy ids to messages");
    for (size_t i = 0; i < reasons->size(); ++i) {
      std::string why;
      CONFIG_ASSIGN(why, r.Str(reasons->member(i), reasons->key(i)));
      options->reasons.emplace_back(S(reasons->key(i)), std::move(why));
    }
  }
  if (std::optional<JsonValue> d = root.Find("decisionLog")) {
    if (absl::Status s = r.Known(*d, "`decisionLog`", {"maskContext", "queue", "queueBytes", "stopTimeoutSeconds", "maxBytes", "keep"});
        !s.ok()) {
      return s;
    }
    if (auto v = d->Find("maskContext")) { CONFIG_ASSIGN(options->mask_context, r.Strings(*v, "maskContext")); }
    if (auto v = d->Find("queue")) {
      int64_t n = 0;
      CONFIG_ASSIGN(n, r.Int(*v, "queue", 1, 1 << 24));
      options->decision_log_queue = static_cast<size_t>(n);
    }
    if (auto v = d->Find("queueBytes")) {
      int64_t n = 0;
      CONFIG_ASSIGN(n, r.Int(*v, "queueBytes", 1024, int64_t{1} << 34));
      options->decision_log_queue_bytes = static_cast<size_t>(n);
    }
    if (auto v = d->Find("stopTimeoutSeconds")) {
      int64_t n = 0;
      CONFIG_ASSIGN(n, r.Int(*v, "stopTimeoutSeconds", 0, 3600));
      options->decision_log_stop_timeout_seconds = static_cast<int>(n);
    }
    if (auto v = d->Find("maxBytes")) {
      int64_t n = 0;
      CONFIG_ASSIGN(n, r.Int(*v, "maxBytes", 0, int64_t{1} << 50));
      options->decision_log_max_bytes = static_cast<uint64_t>(n);
    }
    if (auto v = d->Find("keep")) {
      int64_t n = 0;
      CONFIG_ASSIGN(n, r.Int(*v, "keep", 1, 1000));
      options->decision_log_keep = static_cast<int>(n);
    }
  }
  if (std::optional<JsonValue> l = root.Find("limits")) {
    if (absl::Status s = r.Known(*l, "`limits`",
                                 {"maxBodyBytes", "maxInflatedBodyBytes", "maxHeaderBytes", "maxHeaders",
                                  "handshakeTimeoutSeconds", "headerTimeoutSeconds", "readTimeoutSeconds",
                                  "writeTimeoutSeconds", "idleTimeoutSeconds", "maxConnections",
                                  "maxConnectionsPerClient", "threads", "clientChainDepth"});
        !s.ok()) {
      return s;
    }
    int64_t n = 0;
    auto size = [&](std::string_view name, int64_t lo, int64_t hi, size_t* out) -> absl::Status {
      if (auto v = l->Find(name)) {
        CONFIG_ASSIGN(n, r.Int(*v, name, lo, hi));
        *out = static_cast<size_t>(n);
      }
      return absl::OkStatus();
    };
    auto whole = [&](std::string_view name, int64_t lo, int64_t hi, int* out) -> absl::Status {
      if (auto v = l->Find(name)) {
        CONFIG_ASSIGN(n, r.Int(*v, name, lo, hi));
        *out = static_cast<int>(n);
      }
      return absl::OkStatus();
    };
    for (absl::Status s : {
             size("maxBodyBytes", 1024, int64_t{1} << 30, &options->max_body_bytes),
             size("maxInflatedBodyBytes", 1024, int64_t{1} << 30, &options->max_inflated_body_bytes),
             size("maxHeaderBytes", 1024, 1 << 20, &options->max_header_bytes),
             whole("maxHeaders", 8, 10000, &options->max_headers),
             whole("handshakeTimeoutSeconds", 1, 3600, &options->handshake_timeout_seconds),
             whole("headerTimeoutSeconds", 1, 3600, &options->header_timeout_seconds),
             whole("readTimeoutSeconds", 1, 3600, &options->read_timeout_seconds),
             whole("writeTimeoutSeconds", 1, 3600, &options->write_timeout_seconds),
             whole("idleTimeoutSeconds", 1, 3600, &options->idle_timeout_seconds),
             whole("maxConnections", 1, 1 << 20, &options->max_connections),
             whole("maxConnectionsPerClient", 1, 1 << 20, &options->max_connections_per_client),
             whole("threads", 1, 4096, &options->threads),
             whole("clientChainDepth", 0, 16, &options->client_chain_depth),
         }) {
      if (!s.ok()) return s;
    }
  }
  if (std::optional<JsonValue> w = root.Find("watch")) {
    if (!w->is_bool()) return r.Fail(*w, "`watch` must be true or false");
    options->watch = w->as_bool();
  }
  return absl::OkStatus();
}

}  // namespace charter::server
