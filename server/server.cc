// The server (server.h): HTTPS through cpp-httplib and OpenSSL, a
// PolicyState swapped atomically on reload, Prometheus metrics, a decision
// log written by its own thread from a bounded queue, and one thread that
// waits for signals (SIGHUP reloads, SIGTERM and SIGINT drain and stop) and
// for inotify events on the files served.
#include "server.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter_support/strings.h"
#include "charter/json.h"
#include "httplib.h"
#include "json_write.h"

namespace charter::server {
namespace {

using support::Cat;
using support::CatAppend;

using support::S;

void Say(std::string_view line) {
  std::string out = Cat("charter serve: ", S(line), "\n");
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
}

std::string OneLine(absl::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

// ---- metrics -----------------------------------------------------------------

enum Endpoint { kAuthorize, kAdmission, kAuthorization, kEndpoints };
constexpr std::array<const char*, kEndpoints> kEndpointNames = {"authorize", "admission", "authorization"};
constexpr std::array<double, 11> kBuckets = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                             0.005,   0.01,   0.025,   0.1,    1.0};

class Metrics {
 public:
  void Decided(Endpoint e, bool allowed, double seconds) {
    decisions_[e][allowed ? 0 : 1].fetch_add(1, std::memory_order_relaxed);
    Observe(e, seconds);
  }
  void Observe(Endpoint e, double seconds) {
    size_t b = 0;
    while (b < kBuckets.size() && seconds > kBuckets[b]) ++b;
    buckets_[e][b].fetch_add(1, std::memory_order_relaxed);
    // Microseconds, summed as an integer so that no lock is needed.
    sum_us_[e].fetch_add(static_cast<uint64_t>(seconds * 1e6), std::memory_order_relaxed);
  }
  void Error(std::string_view endpoint, int code) {
    std::lock_guard<std::mutex> lock(mu_);
    ++errors_[{S(endpoint), code}];
  }
  std::atomic<uint64_t> reloads{0}, reload_failures{0}, log_dropped{0}, log_written{0};

  std::string Render(const PolicyState& state) const {
    std::string out;
    out += "# HELP charter_requests_total Requests decided, by endpoint and decision.\n"
           "# TYPE charter_requests_total counter\n";
    for (int e = 0; e < kEndpoints; ++e) {
      for (int d = 0; d < 2; ++d) {
        CatAppend(&out, "charter_requests_total{endpoint=\"", kEndpointNames[e], "\",decision=\"",
                        d == 0 ? "allow" : "deny", "\"} ", decisions_[e][d].load(), "\n");
      }
    }
    out += "# HELP charter_request_errors_total Requests refused with an HTTP error, by endpoint and status.\n"
           "# TYPE charter_request_errors_total counter\n";
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [key, n] : errors_) {
        CatAppend(&out, "charter_request_errors_total{endpoint=", Quoted(key.first), ",code=\"",
                        key.second, "\"} ", n, "\n");
      }
    }
    out += "# HELP charter_request_duration_seconds Time to decide a request, from its body read to its answer.\n"
           "# TYPE charter_request_duration_seconds histogram\n";
    for (int e = 0; e < kEndpoints; ++e) {
      uint64_t cumulative = 0;
      for (size_t b = 0; b <= kBuckets.size(); ++b) {
        cumulative += buckets_[e][b].load();
        std::string le = b < kBuckets.size() ? Cat(kBuckets[b]) : "+Inf";
        CatAppend(&out, "charter_request_duration_seconds_bucket{endpoint=\"", kEndpointNames[e],
                        "\",le=\"", le, "\"} ", cumulative, "\n");
      }
      CatAppend(&out, "charter_request_duration_seconds_sum{endpoint=\"", kEndpointNames[e], "\"} ",
                      static_cast<double>(sum_us_[e].load()) / 1e6, "\n");
      CatAppend(&out, "charter_request_duration_seconds_count{endpoint=\"", kEndpointNames[e], "\"} ",
                      cumulative, "\n");
    }
    CatAppend(
        &out,
        "# HELP charter_bundle_info The bundle being served.\n# TYPE charter_bundle_info gauge\n"
        "charter_bundle_info{hash=\"", state.bundle_hash(), "\",policies=\"", state.engine().policy_count(),
        "\"} 1\n",
        "# HELP charter_bundle_load_timestamp_seconds When the bundle being served was loaded.\n"
        "# TYPE charter_bundle_load_timestamp_seconds gauge\ncharter_bundle_load_timestamp_seconds ",
        std::chrono::duration_cast<std::chrono::seconds>(state.loaded_at().time_since_epoch()).count(), "\n",
        "# HELP charter_reloads_total Reloads that installed a new policy state.\n"
        "# TYPE charter_reloads_total counter\ncharter_reloads_total ", reloads.load(), "\n",
        "# HELP charter_reload_failures_total Reloads that failed; the previous state kept serving.\n"
        "# TYPE charter_reload_failures_total counter\ncharter_reload_failures_total ", reload_failures.load(), "\n",
        "# HELP charter_decision_log_written_total Decision-log lines written.\n"
        "# TYPE charter_decision_log_written_total counter\ncharter_decision_log_written_total ",
        log_written.load(), "\n",
        "# HELP charter_decision_log_dropped_total Decision-log lines dropped because the queue was full.\n"
        "# TYPE charter_decision_log_dropped_total counter\ncharter_decision_log_dropped_total ",
        log_dropped.load(), "\n");
    return out;
  }

 private:
  std::array<std::array<std::atomic<uint64_t>, 2>, kEndpoints> decisions_{};
  std::array<std::array<std::atomic<uint64_t>, kBuckets.size() + 1>, kEndpoints> buckets_{};
  std::array<std::atomic<uint64_t>, kEndpoints> sum_us_{};
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> errors_;
};

// ---- decision log --------------------------------------------------------------

// Lines go into a bounded queue that one thread writes out; a decision never
// waits for the disk: when the queue is full the line is dropped and counted.
class DecisionLog {
 public:
  DecisionLog(std::FILE* out, bool owned, size_t capacity, Metrics* metrics)
      : out_(out), owned_(owned), capacity_(capacity), metrics_(metrics) {
    writer_ = std::thread([this] { Run(); });
  }
  ~DecisionLog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    writer_.join();
    if (owned_) std::fclose(out_);
  }

  void Push(std::string line) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (queue_.size() >= capacity_) {
        metrics_->log_dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      queue_.push_back(std::move(line));
    }
    cv_.notify_one();
  }

 private:
  void Run() {
    std::deque<std::string> batch;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty() && stopping_) return;
        batch.swap(queue_);
      }
      for (const std::string& line : batch) std::fwrite(line.data(), 1, line.size(), out_);
      std::fflush(out_);
      metrics_->log_written.fetch_add(batch.size(), std::memory_order_relaxed);
      batch.clear();
    }
  }

  std::FILE* out_;
  bool owned_;
  size_t capacity_;
  Metrics* metrics_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool stopping_ = false;
  std::thread writer_;
};

std::string NowRfc3339() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  long micros = static_cast<long>(
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000);
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
  return buf;
}

// ---- certificates ---------------------------------------------------------------

// The certificate and key handshakes use, replaceable while the server runs:
// OpenSSL asks for them on every handshake (SSL_CTX_set_cert_cb).
class Certificates {
 public:
  ~Certificates() { Clear(&current_); }

  absl::Status Load(const std::string& cert_path, const std::string& key_path) {
    Pair next;
    BIO* bio = BIO_new_file(cert_path.c_str(), "r");
    if (bio == nullptr) return absl::NotFoundError(Cat(cert_path, ": cannot open the certificate"));
    next.leaf = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    if (next.leaf != nullptr) {
      next.chain = sk_X509_new_null();
      while (X509* extra = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) sk_X509_push(next.chain, extra);
    }
    BIO_free(bio);
    ERR_clear_error();
    if (next.leaf == nullptr) {
      Clear(&next);
      return absl::InvalidArgumentError(Cat(cert_path, ": no PEM certificate in it"));
    }
    bio = BIO_new_file(key_path.c_str(), "r");
    if (bio == nullptr) {
      Clear(&next);
      return absl::NotFoundError(Cat(key_path, ": cannot open the key"));
    }
    next.key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    ERR_clear_error();
    if (next.key == nullptr) {
      Clear(&next);
      return absl::InvalidArgumentError(Cat(key_path, ": no PEM private key in it"));
    }
    if (X509_check_private_key(next.leaf, next.key) != 1) {
      ERR_clear_error();
      Clear(&next);
      return absl::InvalidArgumentError(Cat(key_path, ": the key does not match ", cert_path));
    }
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(current_, next);
    Clear(&next);
    return absl::OkStatus();
  }

  // For SSL_CTX_set_cert_cb: installs the current pair on a handshake.
  static int Select(SSL* ssl, void* arg) {
    auto* self = static_cast<Certificates*>(arg);
    std::lock_guard<std::mutex> lock(self->mu_);
    if (self->current_.leaf == nullptr) return 0;
    return SSL_use_cert_and_key(ssl, self->current_.leaf, self->current_.key, self->current_.chain, 1);
  }

 private:
  struct Pair {
    X509* leaf = nullptr;
    EVP_PKEY* key = nullptr;
    STACK_OF(X509)* chain = nullptr;
  };
  static void Clear(Pair* p) {
    if (p->leaf) X509_free(p->leaf);
    if (p->key) EVP_PKEY_free(p->key);
    if (p->chain) sk_X509_pop_free(p->chain, X509_free);
    *p = Pair{};
  }
  std::mutex mu_;
  Pair current_;
};

// ---- the server ---------------------------------------------------------------------

class Server {
 public:
  Server(const ServerOptions& options, std::shared_ptr<const PolicyState> state)
      : options_(options), state_(std::move(state)) {
    answers_base_.reasons = options.reasons;
  }

  Certificates& certificates() { return certificates_; }
  Metrics& metrics() { return metrics_; }
  void set_log(DecisionLog* log) { log_ = log; }
  void set_draining() { draining_.store(true); }

  std::shared_ptr<const PolicyState> State() const {
    std::lock_guard<std::mutex> lock(mu_);
    return state_;
  }

  // Loads the files again; on any fault the current state keeps serving.
  void Reload(std::string_view why) {
    absl::StatusOr<std::shared_ptr<const PolicyState>> next = PolicyState::Load(options_.files, options_.mapping.join);
    absl::Status certs = certificates_.Load(options_.tls_cert, options_.tls_key);
    if (!certs.ok()) {
      // The handshakes keep the certificate they have; the failure counts.
      metrics_.reload_failures.fetch_add(1);
      Say(Cat("reload (", S(why), "): certificates not replaced: ", OneLine(certs.message())));
    }
    if (!next.ok()) {
      metrics_.reload_failures.fetch_add(1);
      Say(Cat("reload (", S(why), ") failed, still serving ", State()->bundle_hash(), ": ",
                       OneLine(next.status().message())));
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      state_ = *next;
    }
    metrics_.reloads.fetch_add(1);
    Say(Cat("reloaded (", S(why), "): bundle ", (*next)->bundle_hash(), ", ",
                     (*next)->engine().policy_count(), " policies"));
  }

  void Install(httplib::Server& http) {
    http.Post("/v1/authorize", [this](const httplib::Request& q, httplib::Response& r) { Authorize(q, r); });
    http.Post("/v1/admission", [this](const httplib::Request& q, httplib::Response& r) { Review(kAdmission, q, r); });
    http.Post("/v1/authorization",
              [this](const httplib::Request& q, httplib::Response& r) { Review(kAuthorization, q, r); });
    http.Get("/healthz", [](const httplib::Request&, httplib::Response& r) { r.set_content("ok\n", "text/plain"); });
    http.Get("/readyz", [this](const httplib::Request&, httplib::Response& r) {
      if (draining_.load()) {
        r.status = 503;
        r.set_content("draining\n", "text/plain");
      } else {
        r.set_content("ok\n", "text/plain");
      }
    });
    http.Get("/metrics", [this](const httplib::Request&, httplib::Response& r) {
      r.set_content(metrics_.Render(*State()), "text/plain; version=0.0.4");
    });
    // Errors httplib finds itself (an unknown path, a body over the limit)
    // get a body saying what happened.
    http.set_error_handler([this](const httplib::Request& q, httplib::Response& r) {
      if (!r.body.empty()) return;
      std::string message;
      switch (r.status) {
        case 404: message = Cat("no endpoint ", q.method, " ", q.path); break;
        case 405: message = Cat(q.method, " is not allowed on ", q.path); break;
        case 413:
          // cpp-httplib limits form-encoded bodies (curl's default type for
          // --data) to 8 KiB, whatever the configured limit.
          if (q.get_header_value("Content-Type") == "application/x-www-form-urlencoded" &&
              q.get_header_value_count("Content-Length") > 0 &&
              std::strtoull(q.get_header_value("Content-Length").c_str(), nullptr, 10) <= options_.max_body_bytes) {
            message = "a body of Content-Type application/x-www-form-urlencoded is limited to 8192 bytes: "
                      "send Content-Type: application/json";
          } else {
            message = Cat("the request body is larger than ", options_.max_body_bytes, " bytes");
          }
          break;
        case 400: message = "malformed HTTP request"; break;
        default: message = Cat("HTTP error ", r.status); break;
      }
      metrics_.Error(EndpointOf(q.path), r.status);
      Say(Cat(q.method, " ", q.path, ": ", r.status, ": ", message));
      r.set_content(ErrorBody(r.status, message), "application/json");
    });
    http.set_exception_handler([this](const httplib::Request& q, httplib::Response& r, std::exception_ptr) {
      r.status = 500;
      metrics_.Error(EndpointOf(q.path), 500);
      r.set_content(ErrorBody(500, "internal error"), "application/json");
    });
  }

 private:
  static std::string EndpointOf(std::string_view path) {
    if (path == "/v1/authorize") return "authorize";
    if (path == "/v1/admission") return "admission";
    if (path == "/v1/authorization") return "authorization";
    return "other";
  }
  static std::string ErrorBody(int code, std::string_view message) {
    return Cat("{\"error\":{\"code\":", code, ",\"message\":", Quoted(message), "}}\n");
  }
  void Refuse(Endpoint e, httplib::Response& r, int code, absl::string_view message) {
    metrics_.Error(kEndpointNames[e], code);
    Say(Cat("POST /v1/", kEndpointNames[e], ": ", code, ": ", OneLine(message)));
    r.status = code;
    r.set_content(ErrorBody(code, OneLine(message)), "application/json");
  }

  void Log(Endpoint e, std::string_view uid, const EntityUid& p, const EntityUid& a, const EntityUid& res,
           const Decision& d, const PolicyState& state, double seconds, std::string_view request_json) {
    if (log_ == nullptr) return;
    std::string line = Cat("{\"time\":", Quoted(NowRfc3339()), ",\"endpoint\":", Quoted(kEndpointNames[e]),
                                    ",\"uid\":", Quoted(uid), ",\"principal\":", Quoted(p.ToString()),
                                    ",\"action\":", Quoted(a.ToString()), ",\"resource\":", Quoted(res.ToString()),
                                    ",\"decision\":", d.allowed ? "\"allow\"" : "\"deny\"", ",\"reasons\":[");
    for (size_t i = 0; i < d.reasons.size(); ++i) CatAppend(&line, i ? "," : "", Quoted(d.reasons[i]));
    line += "],\"errors\":[";
    for (size_t i = 0; i < d.errors.size(); ++i) {
      CatAppend(&line, i ? "," : "", "{\"policy\":", Quoted(d.errors[i].policy_id), ",\"message\":",
                      Quoted(d.errors[i].message), "}");
    }
    CatAppend(&line, "],\"bundle\":", Quoted(state.bundle_hash()),
                    ",\"latency_us\":", static_cast<int64_t>(seconds * 1e6), ",\"request\":");
    absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(request_json);
    if (doc.ok()) {
      AppendCompact(&line, request_json, doc->root(), &options_.mask_context);
    } else {
      line += "null";
    }
    line += "}\n";
    log_->Push(std::move(line));
  }

  void Authorize(const httplib::Request& q, httplib::Response& r) {
    auto start = std::chrono::steady_clock::now();
    std::shared_ptr<const PolicyState> state = State();
    size_t first = q.body.find_first_not_of(" \t\r\n");
    bool batch = first != std::string::npos && q.body[first] == '[';
    std::vector<Request> requests;
    if (batch) {
      absl::StatusOr<std::vector<Request>> many = state->RequestsFromJson(q.body);
      if (!many.ok()) return Refuse(kAuthorize, r, 400, many.status().message());
      requests = *std::move(many);
    } else {
      absl::StatusOr<Request> one = state->RequestFromJson(q.body);
      if (!one.ok()) return Refuse(kAuthorize, r, 400, one.status().message());
      requests.push_back(*std::move(one));
    }
    std::vector<Decision> decisions;
    decisions.reserve(requests.size());
    std::string out = batch ? "[" : "";
    for (size_t i = 0; i < requests.size(); ++i) {
      decisions.push_back(state->engine().Authorize(requests[i], state->entities()));
      CatAppend(&out, i ? "," : "", decisions.back().ToJsonWithPositions());
    }
    out += batch ? "]\n" : "\n";
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double each = requests.empty() ? seconds : seconds / static_cast<double>(requests.size());
    std::optional<JsonDocument> doc;
    if (log_ != nullptr) {
      absl::StatusOr<JsonDocument> parsed = JsonDocument::Parse(q.body);
      if (parsed.ok()) doc = *std::move(parsed);
    }
    for (size_t i = 0; i < requests.size(); ++i) {
      metrics_.Decided(kAuthorize, decisions[i].allowed, each);
      if (doc.has_value()) {
        JsonValue v = batch ? doc->root().at(i) : doc->root();
        size_t begin = v.offset();
        std::string_view raw = std::string_view(q.body).substr(begin, JsonValueEnd(q.body, begin) - begin);
        Log(kAuthorize, "", requests[i].principal(), requests[i].action(), requests[i].resource(), decisions[i],
            *state, each, raw);
      }
    }
    r.set_content(out, "application/json");
  }

  void Review(Endpoint e, const httplib::Request& q, httplib::Response& r) {
    auto start = std::chrono::steady_clock::now();
    std::shared_ptr<const PolicyState> state = State();
    absl::StatusOr<MappedReview> review = e == kAdmission ? MapAdmissionReview(q.body, options_.mapping)
                                                          : MapSubjectAccessReview(q.body, options_.mapping);
    if (!review.ok()) return Refuse(e, r, 400, review.status().message());
    AnswerOptions answers = answers_base_;
    answers.bundle_hash = state->bundle_hash();
    absl::StatusOr<Entities> entities = state->EntitiesFor(*review);
    absl::StatusOr<Request> request =
        entities.ok() ? state->RequestFor(*review) : absl::StatusOr<Request>(entities.status());
    Decision decision;
    if (!request.ok()) {
      if (e == kAdmission) {
        return Refuse(e, r, 400, Cat("the review does not map to a request the policies accept: ",
                                              S(request.status().message())));
      }
      // An authorizer that cannot read a request has no opinion on it; the
      // apiserver asks the next one.
      decision.errors.push_back(PolicyError{"(mapping)", OneLine(request.status().message()), {}});
    } else {
      decision = state->engine().Authorize(*request, *entities);
    }
    std::string out = e == kAdmission ? AdmissionAnswer(*review, decision, answers)
                                      : AuthorizationAnswer(*review, decision, answers);
    out += "\n";
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_.Decided(e, decision.allowed, seconds);
    Log(e, review->uid, review->principal, review->action, review->resource, decision, *state, seconds,
        review->request_json);
    r.set_content(out, "application/json");
  }

  const ServerOptions& options_;
  AnswerOptions answers_base_;
  mutable std::mutex mu_;  // guards state_: held only to copy or replace the pointer
  std::shared_ptr<const PolicyState> state_;
  Certificates certificates_;
  Metrics metrics_;
  DecisionLog* log_ = nullptr;
  std::atomic<bool> draining_{false};
};

// The names, in the directories watched, whose change means a reload: the
// files themselves and Kubernetes' "..data" (a ConfigMap or Secret volume
// swaps that symlink to update its files).
struct Watch {
  int fd = -1;
  std::map<int, std::vector<std::string>> names;  // watch descriptor -> base names
};

Watch StartWatch(const ServerOptions& options) {
  Watch w;
  w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (w.fd < 0) {
    Say("inotify is not available: files are reloaded on SIGHUP only");
    return w;
  }
  std::map<std::string, std::vector<std::string>> by_dir;
  std::vector<std::string> files = {options.files.bundle, options.files.entities, options.tls_cert, options.tls_key};
  files.insert(files.end(), options.files.schemas.begin(), options.files.schemas.end());
  for (const std::string& f : files) {
    if (f.empty()) continue;
    std::filesystem::path p(f);
    std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
    by_dir[dir].push_back(p.filename().string());
  }
  for (auto& [dir, names] : by_dir) {
    int wd = inotify_add_watch(w.fd, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE);
    if (wd < 0) {
      Say(Cat("cannot watch ", dir, ": files there are reloaded on SIGHUP only"));
      continue;
    }
    names.push_back("..data");
    w.names[wd] = names;
  }
  return w;
}

// Whether the events waiting on the inotify descriptor touch a served file.
bool DrainWatch(const Watch& w) {
  bool touched = false;
  alignas(struct inotify_event) char buf[8192];
  for (;;) {
    ssize_t n = read(w.fd, buf, sizeof buf);
    if (n <= 0) break;
    for (char* p = buf; p < buf + n;) {
      auto* ev = reinterpret_cast<struct inotify_event*>(p);
      auto it = w.names.find(ev->wd);
      if (it != w.names.end() && ev->len > 0) {
        std::string name(ev->name);
        for (const std::string& want : it->second) touched = touched || name == want;
      }
      p += sizeof(struct inotify_event) + ev->len;
    }
  }
  return touched;
}

}  // namespace

absl::Status ParseListen(std::string_view listen, ServerOptions* options) {
  std::string_view host, port;
  if (!listen.empty() && listen[0] == '[') {
    size_t close = listen.find(']');
    if (close == std::string_view::npos || close + 1 >= listen.size() || listen[close + 1] != ':') {
      return absl::InvalidArgumentError(Cat("`", S(listen), "` is not [ADDRESS]:PORT"));
    }
    host = listen.substr(1, close - 1);
    port = listen.substr(close + 2);
  } else {
    size_t colon = listen.rfind(':');
    if (colon == std::string_view::npos) {
      return absl::InvalidArgumentError(Cat("`", S(listen), "` is not ADDRESS:PORT"));
    }
    host = listen.substr(0, colon);
    port = listen.substr(colon + 1);
  }
  int n = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
  if (ec != std::errc() || end != port.data() + port.size() || n < 0 || n > 65535) {
    return absl::InvalidArgumentError(Cat("`", S(port), "` is not a port from 0 to 65535"));
  }
  options->host = host.empty() ? "0.0.0.0" : S(host);
  options->port = n;
  return absl::OkStatus();
}

int Serve(const ServerOptions& options) {
  // Signals are taken by one thread through a signalfd: blocked here, before
  // any thread starts, so that every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGHUP);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  int sfd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) {
    Say("error: cannot create a signalfd");
    return 1;
  }

  absl::StatusOr<std::shared_ptr<const PolicyState>> state = PolicyState::Load(options.files, options.mapping.join);
  if (!state.ok()) {
    Say(Cat("error: ", OneLine(state.status().message())));
    return 1;
  }
  Server server(options, *state);
  if (absl::Status s = server.certificates().Load(options.tls_cert, options.tls_key); !s.ok()) {
    Say(Cat("error: ", OneLine(s.message())));
    return 1;
  }
  std::unique_ptr<DecisionLog> log;
  if (!options.decision_log.empty()) {
    std::FILE* out = stdout;
    bool owned = false;
    if (options.decision_log != "-") {
      out = std::fopen(options.decision_log.c_str(), "a");
      if (out == nullptr) {
        Say(Cat("error: ", options.decision_log, ": cannot open the decision log for appending"));
        return 1;
      }
      owned = true;
    }
    log = std::make_unique<DecisionLog>(out, owned, options.decision_log_queue, &server.metrics());
    server.set_log(log.get());
  }

  Certificates* certs = &server.certificates();
  httplib::SSLServer http([certs](SSL_CTX& ctx) {
    SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
    SSL_CTX_set_cert_cb(&ctx, &Certificates::Select, certs);
    return true;
  });
  if (!http.is_valid()) {
    Say("error: cannot set up TLS");
    return 1;
  }
  int threads = options.threads;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http.set_payload_max_length(options.max_body_bytes);
  http.set_read_timeout(options.read_timeout_seconds, 0);
  http.set_write_timeout(options.write_timeout_seconds, 0);
  http.set_keep_alive_timeout(options.idle_timeout_seconds);
  http.set_keep_alive_max_count(1u << 30);
  http.set_tcp_nodelay(true);
  server.Install(http);
  if (options.host.find(':') != std::string::npos) http.set_address_family(AF_INET6);
  int port = options.port;
  if (port == 0) {
    port = http.bind_to_any_port(options.host);
    if (port < 0) {
      Say(Cat("error: cannot listen on ", options.host));
      return 1;
    }
  } else if (!http.bind_to_port(options.host, port)) {
    Say(Cat("error: cannot listen on ", options.host, ":", port, " (in use, or not an address here)"));
    return 1;
  }
  std::string host = options.host.find(':') != std::string::npos ? Cat("[", options.host, "]") : options.host;
  Say(Cat("listening on https://", host, ":", port, " (bundle ", (*state)->bundle_hash(), ", ",
          (*state)->engine().policy_count(), " policies",
          (*state)->schema() == nullptr ? ""
          : (*state)->untyped_join() ? "; reviews' entities checked against the schema at load"
                                     : "; reviews' entities read with the schema",
          ")"));
  std::thread listener([&http] { http.listen_after_bind(); });

  Watch watch = options.watch ? StartWatch(options) : Watch{};
  bool reload_pending = false;
  std::chrono::steady_clock::time_point reload_at{};
  for (;;) {
    struct pollfd fds[2] = {{sfd, POLLIN, 0}, {watch.fd, POLLIN, 0}};
    int timeout = -1;
    if (reload_pending) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(reload_at - std::chrono::steady_clock::now());
      timeout = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    poll(fds, watch.fd >= 0 ? 2 : 1, timeout);
    bool stop = false;
    struct signalfd_siginfo info;
    while (read(sfd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      if (info.ssi_signo == SIGHUP) {
        server.Reload("SIGHUP");
      } else {
        stop = true;
      }
    }
    if (stop) break;
    if (watch.fd >= 0 && (fds[1].revents & POLLIN) && DrainWatch(watch)) {
      // Writers replace files in steps (write, rename, the symlink swap of a
      // ConfigMap): wait for them to settle.
      reload_pending = true;
      reload_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    }
    if (reload_pending && std::chrono::steady_clock::now() >= reload_at) {
      reload_pending = false;
      server.Reload("files changed");
    }
  }
  Say("stopping: finishing the requests in flight");
  server.set_draining();
  http.stop();
  listener.join();
  log.reset();  // writes what is queued
  if (watch.fd >= 0) close(watch.fd);
  close(sfd);
  Say("stopped");
  return 0;
}

}  // namespace charter::server
