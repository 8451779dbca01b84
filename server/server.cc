// The server (server.h): HTTPS on event loops of our own (epoll and
// non-blocking OpenSSL; http.h parses the requests), client certificates
// verified against --client-ca, an admin listener of plain HTTP on a unix
// socket or loopback (--admin-listen) served by the same loops, a
// PolicyState swapped atomically on reload, Prometheus metrics, a decision
// log (decision_log.h: its lines, and a writer thread of its own), and one
// thread that waits for signals (SIGHUP reloads and reopens the decision log,
// SIGTERM and SIGINT drain and stop) and for inotify events on the files
// served.
//
// A connection holds no thread: each loop owns its connections and drives
// them as their sockets become ready, so a slow client costs a few
// kilobytes, not a worker. Every phase of a connection has a deadline (the
// handshake, the whole request head, the whole body, the answer's write, the
// wait for the next request), and the number of connections is bounded in
// all and per client address.
#include "server.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "charter_support/strings.h"
#include "charter/json.h"
#include "decide.h"
#include "decision_log.h"
#include "http.h"
#include "json_write.h"
#include "live.h"

namespace charter::server {
namespace {

using support::Cat;
using support::CatAppend;

using support::OneLine;
using support::S;

void Say(std::string_view line) {
  std::string out = Cat("charter serve: ", S(line), "\n");
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
}

// ---- metrics -----------------------------------------------------------------

enum Endpoint { kAuthorize, kAdmission, kAuthorization, kEndpoints };
constexpr std::array<const char*, kEndpoints> kEndpointNames = {"authorize", "admission", "authorization"};
constexpr std::array<double, 11> kBuckets = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                             0.005,   0.01,   0.025,   0.1,    1.0};

class Metrics {
 public:
  void Decided(Endpoint e, Outcome outcome, double seconds) {
    decisions_[e][static_cast<int>(outcome)].fetch_add(1, std::memory_order_relaxed);
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
  std::atomic<uint64_t> reloads{0}, reload_failures{0};
  DecisionLogCounters log;
  // Connections: open now; refused at accept, by reason; evicted to make
  // room; closed at a deadline, by phase.
  enum Refusal { kPerClient, kTotal, kRefusals };
  enum Phase { kHandshake, kIdle, kHead, kBody, kWrite, kPhases };
  static constexpr std::array<const char*, kRefusals> kRefusalNames = {"per_client", "total"};
  static constexpr std::array<const char*, kPhases> kPhaseNames = {"handshake", "idle", "head", "body", "write"};
  std::atomic<int64_t> connections_open{0};
  std::atomic<uint64_t> connections_evicted{0};
  std::array<std::atomic<uint64_t>, kRefusals> connections_refused{};
  std::array<std::atomic<uint64_t>, kPhases> connection_timeouts{};
  // TLS handshakes refused for the client certificate (--client-ca): none
  // sent, or one that does not verify against the CAs.
  enum CertRefusal { kCertMissing, kCertUnverified, kCertRefusals };
  static constexpr std::array<const char*, kCertRefusals> kCertRefusalNames = {"missing", "unverified"};
  std::array<std::atomic<uint64_t>, kCertRefusals> client_certificates_refused{};

  std::string Render(const PolicyState& state) const {
    std::string out;
    out += "# HELP charter_requests_total Requests decided, by endpoint and decision (a SubjectAccessReview's: "
           "allow, deny or no_opinion).\n"
           "# TYPE charter_requests_total counter\n";
    static constexpr std::array<const char*, 3> kOutcomes = {"allow", "deny", "no_opinion"};
    for (int e = 0; e < kEndpoints; ++e) {
      for (int d = 0; d < (e == kAuthorization ? 3 : 2); ++d) {
        CatAppend(&out, "charter_requests_total{endpoint=\"", kEndpointNames[e], "\",decision=\"", kOutcomes[d],
                        "\"} ", decisions_[e][d].load(), "\n");
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
        log.written.load(), "\n",
        "# HELP charter_decision_log_dropped_total Decision-log lines dropped: the queue was full (in lines "
        "or bytes), the output failed, or it was still blocked when the server stopped.\n"
        "# TYPE charter_decision_log_dropped_total counter\ncharter_decision_log_dropped_total ",
        log.dropped.load(), "\n",
        "# HELP charter_decision_log_queue_bytes Bytes of decision-log lines waiting to be written.\n"
        "# TYPE charter_decision_log_queue_bytes gauge\ncharter_decision_log_queue_bytes ",
        log.queue_bytes.load(), "\n",
        "# HELP charter_decision_log_reopened_total Times the decision-log file was opened again (SIGHUP).\n"
        "# TYPE charter_decision_log_reopened_total counter\ncharter_decision_log_reopened_total ",
        log.reopened.load(), "\n",
        "# HELP charter_decision_log_rotated_total Times the decision-log file was rotated (decisionLog.maxBytes).\n"
        "# TYPE charter_decision_log_rotated_total counter\ncharter_decision_log_rotated_total ",
        log.rotated.load(), "\n",
        "# HELP charter_decision_log_file_failures_total Reopens and rotations of the decision-log file that "
        "failed; the file open before is still written.\n"
        "# TYPE charter_decision_log_file_failures_total counter\ncharter_decision_log_file_failures_total ",
        log.file_failures.load(), "\n",
        "# HELP charter_connections_open Connections open, on the TLS and the admin listener.\n"
        "# TYPE charter_connections_open gauge\ncharter_connections_open ", connections_open.load(), "\n",
        "# HELP charter_connections_evicted_total Connections closed before their request head was whole, to "
        "make room for a new one when every connection was taken.\n"
        "# TYPE charter_connections_evicted_total counter\ncharter_connections_evicted_total ",
        connections_evicted.load(), "\n");
    out += "# HELP charter_connections_refused_total Connections closed at accept: the client's budget "
           "(per_client) or the server's (total) was full.\n"
           "# TYPE charter_connections_refused_total counter\n";
    for (int r = 0; r < kRefusals; ++r) {
      CatAppend(&out, "charter_connections_refused_total{reason=\"", kRefusalNames[r], "\"} ",
                connections_refused[r].load(), "\n");
    }
    out += "# HELP charter_connection_timeouts_total Connections closed at a deadline, by the phase it bounds.\n"
           "# TYPE charter_connection_timeouts_total counter\n";
    for (int p = 0; p < kPhases; ++p) {
      CatAppend(&out, "charter_connection_timeouts_total{phase=\"", kPhaseNames[p], "\"} ",
                connection_timeouts[p].load(), "\n");
    }
    out += "# HELP charter_client_certificates_refused_total TLS handshakes refused for the client certificate "
           "(--client-ca): none was sent (missing), or it did not verify against the CAs (unverified).\n"
           "# TYPE charter_client_certificates_refused_total counter\n";
    for (int r = 0; r < kCertRefusals; ++r) {
      CatAppend(&out, "charter_client_certificates_refused_total{reason=\"", kCertRefusalNames[r], "\"} ",
                client_certificates_refused[r].load(), "\n");
    }
    return out;
  }

 private:
  std::array<std::array<std::atomic<uint64_t>, 3>, kEndpoints> decisions_{};  // by Outcome
  std::array<std::array<std::atomic<uint64_t>, kBuckets.size() + 1>, kEndpoints> buckets_{};
  std::array<std::atomic<uint64_t>, kEndpoints> sum_us_{};
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> errors_;
};

// ---- certificates ---------------------------------------------------------------

// The certificate and key handshakes use, and with --client-ca the CAs a
// client certificate must be signed by, replaceable while the server runs:
// OpenSSL asks for them on every handshake (SSL_CTX_set_cert_cb), and a
// handshake keeps a reference to what it was given.
class Certificates {
 public:
  ~Certificates() { Clear(&current_); }

  // Reads the three files; replaces the current set only if all of them
  // read and the key matches (client_ca empty: no client certificates).
  absl::Status Load(const std::string& cert_path, const std::string& key_path, const std::string& client_ca) {
    Set next;
    absl::Status s = Read(cert_path, key_path, client_ca, &next);
    if (!s.ok()) {
      Clear(&next);
      return s;
    }
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(current_, next);
    Clear(&next);
    return absl::OkStatus();
  }

  // The CA certificates of the client CA bundle now in use.
  int client_ca_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return current_.ca_names == nullptr ? 0 : sk_X509_NAME_num(current_.ca_names);
  }

  // For SSL_CTX_set_cert_cb: installs the current set on a handshake: the
  // certificate and key, and the store the client's certificate is verified
  // against with the CA names the server's CertificateRequest lists.
  static int Select(SSL* ssl, void* arg) {
    auto* self = static_cast<Certificates*>(arg);
    std::lock_guard<std::mutex> lock(self->mu_);
    const Set& c = self->current_;
    if (c.leaf == nullptr) return 0;
    if (c.ca_store != nullptr) {
      STACK_OF(X509_NAME)* names = SSL_dup_CA_list(c.ca_names);
      if (names == nullptr || SSL_set1_verify_cert_store(ssl, c.ca_store) != 1) {
        if (names != nullptr) sk_X509_NAME_pop_free(names, X509_NAME_free);
        return 0;
      }
      SSL_set_client_CA_list(ssl, names);  // takes names
    }
    return SSL_use_cert_and_key(ssl, c.leaf, c.key, c.chain, 1);
  }

 private:
  struct Set {
    X509* leaf = nullptr;
    EVP_PKEY* key = nullptr;
    STACK_OF(X509)* chain = nullptr;
    X509_STORE* ca_store = nullptr;          // with --client-ca only
    STACK_OF(X509_NAME)* ca_names = nullptr;  // their subjects
  };
  static void Clear(Set* p) {
    if (p->leaf) X509_free(p->leaf);
    if (p->key) EVP_PKEY_free(p->key);
    if (p->chain) sk_X509_pop_free(p->chain, X509_free);
    if (p->ca_store) X509_STORE_free(p->ca_store);
    if (p->ca_names) sk_X509_NAME_pop_free(p->ca_names, X509_NAME_free);
    *p = Set{};
  }

  // A directory opens for reading and then reads as nothing: say what it is.
  static absl::Status Openable(const std::string& path, std::string_view what) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(Cat(path, ": is a directory, not ", what));
    }
    return absl::OkStatus();
  }

  static absl::Status Read(const std::string& cert_path, const std::string& key_path, const std::string& client_ca,
                           Set* next) {
    if (absl::Status s = Openable(cert_path, "the certificate"); !s.ok()) return s;
    BIO* bio = BIO_new_file(cert_path.c_str(), "r");
    if (bio == nullptr) {
      std::string why = std::strerror(errno);
      ERR_clear_error();
      return absl::NotFoundError(Cat(cert_path, ": cannot open the certificate: ", why));
    }
    next->leaf = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    if (next->leaf != nullptr) {
      next->chain = sk_X509_new_null();
      while (X509* extra = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) sk_X509_push(next->chain, extra);
    }
    BIO_free(bio);
    ERR_clear_error();
    if (next->leaf == nullptr) return absl::InvalidArgumentError(Cat(cert_path, ": no PEM certificate in it"));
    if (absl::Status s = Openable(key_path, "the key"); !s.ok()) return s;
    bio = BIO_new_file(key_path.c_str(), "r");
    if (bio == nullptr) {
      std::string why = std::strerror(errno);
      ERR_clear_error();
      return absl::NotFoundError(Cat(key_path, ": cannot open the key: ", why));
    }
    next->key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    ERR_clear_error();
    if (next->key == nullptr) return absl::InvalidArgumentError(Cat(key_path, ": no PEM private key in it"));
    if (X509_check_private_key(next->leaf, next->key) != 1) {
      ERR_clear_error();
      return absl::InvalidArgumentError(Cat(key_path, ": the key does not match ", cert_path));
    }
    if (client_ca.empty()) return absl::OkStatus();
    return ReadClientCa(client_ca, next);
  }

  // The client CA bundle: one PEM certificate or more, and nothing else.
  static absl::Status ReadClientCa(const std::string& path, Set* next) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return absl::InvalidArgumentError(Cat(path, ": a directory, not a client CA bundle (--client-ca)"));
    }
    BIO* bio = BIO_new_file(path.c_str(), "r");
    if (bio == nullptr) {
      ERR_clear_error();
      return absl::NotFoundError(Cat(path, ": cannot open the client CA bundle (--client-ca)"));
    }
    next->ca_store = X509_STORE_new();
    next->ca_names = sk_X509_NAME_new_null();
    int count = 0;
    bool junk = false;
    for (;;) {
      X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
      if (ca == nullptr) {
        // The end of the file reads as "no start line"; anything else is a
        // block that is not a certificate.
        unsigned long e = ERR_peek_last_error();
        junk = !(ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE);
        break;
      }
      bool added = X509_STORE_add_cert(next->ca_store, ca) == 1;
      X509_NAME* name = X509_NAME_dup(X509_get_subject_name(ca));
      if (name != nullptr) sk_X509_NAME_push(next->ca_names, name);
      X509_free(ca);
      if (!added) {
        unsigned long e = ERR_peek_last_error();
        // The same CA given twice is harmless.
        if (ERR_GET_REASON(e) != X509_R_CERT_ALREADY_IN_HASH_TABLE) {
          ERR_clear_error();
          BIO_free(bio);
          return absl::InvalidArgumentError(Cat(path, ": certificate ", count + 1, " cannot be used as a CA"));
        }
      }
      ERR_clear_error();
      ++count;
    }
    BIO_free(bio);
    ERR_clear_error();
    if (junk) {
      return absl::InvalidArgumentError(Cat(path, ": certificate ", count + 1,
                                            " is not a PEM certificate (--client-ca wants the CA certificates, "
                                            "PEM, one after another)"));
    }
    if (count == 0) {
      std::uintmax_t size = std::filesystem::file_size(path, ec);
      return absl::InvalidArgumentError(
          Cat(path, ec || size > 0 ? ": no PEM certificate in it" : ": empty",
              " (--client-ca wants the PEM certificates of the CAs that sign client certificates)"));
    }
    return absl::OkStatus();
  }

  std::mutex mu_;
  Set current_;
};

// ---- the server ---------------------------------------------------------------------

struct Response {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // beyond type, length and connection
  void set_content(std::string b, std::string_view type) {
    body = std::move(b);
    content_type = S(type);
  }
};

class Server {
 public:
  Server(const ServerOptions& options, std::shared_ptr<const PolicyState> state)
      : options_(options), state_(std::move(state)) {
    answers_base_.reasons = options.reasons;
    loads_.Add(UnixNow(), "start", true, state_->bundle_hash(), state_->engine().policy_count(), "");
  }

  Certificates& certificates() { return certificates_; }
  Metrics& metrics() { return metrics_; }
  void set_log(DecisionLogWriter* log) { log_ = log; }
  void set_draining() { draining_.store(true); }

  std::shared_ptr<const PolicyState> State() const {
    std::lock_guard<std::mutex> lock(mu_);
    return state_;
  }

  // Loads the files again; on any fault the current state keeps serving.
  void Reload(std::string_view why) {
    absl::StatusOr<std::shared_ptr<const PolicyState>> next = PolicyState::Load(options_.files, options_.mapping.join, options_.enforcement);
    absl::Status certs = certificates_.Load(options_.tls_cert, options_.tls_key, options_.client_ca);
    if (!certs.ok()) {
      // The handshakes keep the certificate they have; the failure counts.
      metrics_.reload_failures.fetch_add(1);
      Say(Cat("reload (", S(why), "): certificates not replaced: ", OneLine(certs.message())));
    }
    if (!next.ok()) {
      metrics_.reload_failures.fetch_add(1);
      loads_.Add(UnixNow(), why, false, State()->bundle_hash(), State()->engine().policy_count(),
                 OneLine(next.status().message()));
      if (absl::Status s = RefreshAllocation(*State()); !s.ok()) {
        Say(Cat("reload (", S(why), "): allocation: ", OneLine(s.message())));
      }
      Say(Cat("reload (", S(why), ") failed, still serving ", State()->bundle_hash(), ": ",
                       OneLine(next.status().message())));
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      state_ = *next;
    }
    metrics_.reloads.fetch_add(1);
    loads_.Add(UnixNow(), why, true, (*next)->bundle_hash(), (*next)->engine().policy_count(), "");
    if (absl::Status s = RefreshAllocation(**next); !s.ok()) {
      Say(Cat("reload (", S(why), "): allocation: ", OneLine(s.message())));
    }
    Say(Cat("reloaded (", S(why), "): bundle ", (*next)->bundle_hash(), ", ",
                     (*next)->engine().policy_count(), " policies"));
  }

  // Draws the live page's allocation again (options_.allocation) for
  // `state`; on an error the last drawing stays and the page shows the error.
  absl::Status RefreshAllocation(const PolicyState& state) {
    if (!options_.allocation) return absl::OkStatus();
    absl::StatusOr<std::string> svg = options_.allocation(state);
    std::lock_guard<std::mutex> lock(allocation_mu_);
    if (!svg.ok()) {
      allocation_error_ = OneLine(svg.status().message());
      return svg.status();
    }
    allocation_time_ = UnixNow();  // of the picture shown
    allocation_svg_ = *std::move(svg);
    allocation_error_.clear();
    return absl::OkStatus();
  }

  // Answers a request the connection has read whole (its body inflated),
  // on the TLS listener or the admin listener (admin). With an admin
  // listener, /v1/authorize, /metrics and the live page (/ui, /ui/app.js,
  // /ui/data) are answered there only, and the webhooks' endpoints on the
  // TLS listener only; the probes on both.
  void Handle(const HttpRequest& q, Response& r, bool admin) {
    const std::string& m = q.method;
    bool get = m == "GET" || m == "HEAD";
    bool ui = q.path == "/ui" || q.path == "/ui/app.js" || q.path == "/ui/data";
    bool local = q.path == "/v1/authorize" || q.path == "/metrics" || ui;
    bool webhook = q.path == "/v1/admission" || q.path == "/v1/authorization";
    if (options_.has_admin() && local && !admin) {
      return Error(q, r, 404, " on this listener: it is served on the admin listener (--admin-listen)");
    }
    if (admin && webhook) return Error(q, r, 404, " on the admin listener: it is served over TLS (--listen)");
    if (q.path == "/metrics") {
      if (!get) return Error(q, r, 405, "GET, HEAD");
      return r.set_content(metrics_.Render(*State()), "text/plain; version=0.0.4");
    }
    if (ui) {
      if (!get) return Error(q, r, 405, "GET, HEAD");
      r.headers.emplace_back("Content-Security-Policy", kLivePagePolicy);
      r.headers.emplace_back("Cache-Control", "no-store");
      r.headers.emplace_back("X-Content-Type-Options", "nosniff");
      if (q.path == "/ui") return r.set_content(std::string(LivePageHtml()), "text/html; charset=utf-8");
      if (q.path == "/ui/app.js") return r.set_content(std::string(LivePageScript()), "text/javascript");
      return r.set_content(LiveData(), "application/json");
    }
    if (local || webhook) {
      if (m != "POST") return Error(q, r, 405, "POST");
      // curl's --data sends this type; such bodies were limited to 8 KiB
      // before (cpp-httplib's rule), and a client that relies on the message
      // still gets it.
      if (q.Header("content-type") == "application/x-www-form-urlencoded" && q.body.size() > 8192) {
        return Error(q, r, 413, "");
      }
      if (q.path == "/v1/authorize") return Authorize(q, r);
      return Review(q.path == "/v1/admission" ? kAdmission : kAuthorization, q, r);
    }
    if (q.path == "/healthz" || q.path == "/readyz") {
      if (!get) return Error(q, r, 405, "GET, HEAD");
      if (q.path == "/healthz") return r.set_content("ok\n", "text/plain");
      if (draining_.load()) {
        r.status = 503;
        return r.set_content("draining\n", "text/plain");
      }
      return r.set_content("ok\n", "text/plain");
    }
    Error(q, r, 404, "");
  }

  // An error answer with a body saying what happened: routing's (404, 405,
  // the form-encoded 413) and the connection's (a malformed request, a
  // limit, a deadline), which pass their message.
  void Error(const HttpRequest& q, Response& r, int status, std::string_view detail) {
    std::string message;
    switch (status) {
      case 404: message = Cat("no endpoint ", q.method, " ", q.path, S(detail)); break;
      case 405:
        message = Cat(q.method, " is not allowed on ", q.path, " (", S(detail), ")");
        r.headers.emplace_back("Allow", S(detail));
        break;
      case 413:
        message = detail.empty() ? "a body of Content-Type application/x-www-form-urlencoded is limited to 8192 "
                                   "bytes: send Content-Type: application/json"
                                 : S(detail);
        break;
      default: message = S(detail); break;
    }
    r.status = status;
    metrics_.Error(EndpointOf(q.path), status);
    Say(Cat(q.method.empty() ? "(no request line)" : OneLine(q.method), " ",
            q.path.empty() ? "" : OneLine(q.path), ": ", status, ": ", message));
    r.set_content(ErrorBody(status, message), "application/json");
  }

 private:
  static int64_t UnixNow() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // GET /ui/data: what the live page draws.
  std::string LiveData() const {
    std::shared_ptr<const PolicyState> state = State();
    const int64_t now = UnixNow();
    std::string allocation = "null";
    if (options_.allocation) {
      std::lock_guard<std::mutex> lock(allocation_mu_);
      allocation = Cat("{\"source\":", Quoted(options_.allocation_source), ",\"time\":",
                       Quoted(UnixTimeName(allocation_time_)), ",\"error\":",
                       allocation_error_.empty() ? std::string("null") : Quoted(allocation_error_),
                       ",\"svg\":", Quoted(allocation_svg_), "}");
    }
    return Cat("{\"now\":", Quoted(UnixTimeName(now)), ",\"bundle\":", Quoted(state->bundle_hash()),
               ",\"policies\":", state->engine().policy_count(), ",\"decisions\":", recent_.Json(now),
               ",\"loads\":", loads_.Json(), ",\"allocation\":", allocation, "}\n");
  }
  static std::string EndpointOf(std::string_view path) {
    if (path == "/v1/authorize") return "authorize";
    if (path == "/v1/admission") return "admission";
    if (path == "/v1/authorization") return "authorization";
    return "other";
  }
  static std::string ErrorBody(int code, std::string_view message) {
    return Cat("{\"error\":{\"code\":", code, ",\"message\":", Quoted(message), "}}\n");
  }
  void Refuse(Endpoint e, Response& r, int code, absl::string_view message) {
    metrics_.Error(kEndpointNames[e], code);
    Say(Cat("POST /v1/", kEndpointNames[e], ": ", code, ": ", OneLine(message)));
    r.status = code;
    r.set_content(ErrorBody(code, OneLine(message)), "application/json");
  }

  // The line of one decision (decision_log.h): the request decided and the
  // entities laid over the configured ones for it.
  void Log(Endpoint e, std::string_view uid, const EntityUid& p, const EntityUid& a, const EntityUid& res,
           const Decision& d, const PolicyState& state, double seconds, std::string_view request_json,
           std::string_view entities_json, const std::vector<Unenforced>* unenforced = nullptr,
           const Decision* answered = nullptr) {
    if (log_ == nullptr) return;
    DecisionLogEntry entry{kEndpointNames[e], uid, p, a, res, &d, OutcomeOf(d, e == kAuthorization),
                           state.bundle_hash(), seconds, request_json, entities_json};
    if (unenforced != nullptr && !unenforced->empty() && answered != nullptr) {
      entry.unenforced = unenforced;
      entry.answered = OutcomeOf(*answered, e == kAuthorization);
    }
    log_->Push(DecisionLogLine(entry, options_.mask_context));
  }

  void Authorize(const HttpRequest& q, Response& r) {
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
    const int64_t now = UnixNow();
    std::optional<JsonDocument> doc;
    if (log_ != nullptr) {
      absl::StatusOr<JsonDocument> parsed = JsonDocument::Parse(q.body);
      if (parsed.ok()) doc = *std::move(parsed);
    }
    for (size_t i = 0; i < requests.size(); ++i) {
      metrics_.Decided(kAuthorize, OutcomeOf(decisions[i], false), each);
      recent_.Record(now, decisions[i], OutcomeOf(decisions[i], false));
      if (doc.has_value()) {
        JsonValue v = batch ? doc->root().at(i) : doc->root();
        size_t begin = v.offset();
        std::string_view raw = std::string_view(q.body).substr(begin, JsonValueEnd(q.body, begin) - begin);
        Log(kAuthorize, "", requests[i].principal(), requests[i].action(), requests[i].resource(), decisions[i],
            *state, each, raw, "[]");
      }
    }
    r.set_content(out, "application/json");
  }

  void Review(Endpoint e, const HttpRequest& q, Response& r) {
    auto start = std::chrono::steady_clock::now();
    std::shared_ptr<const PolicyState> state = State();
    AnswerOptions answers = answers_base_;
    answers.bundle_hash = state->bundle_hash();
    ReviewDecision d = DecideReview(e == kAdmission ? ReviewKind::kAdmission : ReviewKind::kAuthorization, q.body,
                                    options_.mapping, *state, answers);
    if (d.outcome == ReviewDecision::kMalformed) return Refuse(e, r, 400, d.error.message());
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_.Decided(e, OutcomeOf(d.decision, e == kAuthorization), seconds);
    // What the policies decided (as the decision log keeps it).
    const Decision& decided = d.unenforced.empty() ? d.decision : d.policies;
    recent_.Record(UnixNow(), decided, OutcomeOf(decided, e == kAuthorization));
    // A refused object's line, and a review whose request did not read, have
    // no request: there is nothing to decide again. The line keeps the
    // policies' own decision when the rollout answered otherwise.
    const bool asked = d.request.has_value() && log_ != nullptr;
    Log(e, d.review.uid, d.review.principal, d.review.action, d.review.resource,
        d.unenforced.empty() ? d.decision : d.policies, *state, seconds,
        asked ? d.review.request_json() : std::string(), asked ? state->ReviewEntitiesJson(d.review) : std::string(),
        &d.unenforced, &d.decision);
    r.set_content(d.answer + "\n", "application/json");
  }

  const ServerOptions& options_;
  AnswerOptions answers_base_;
  mutable std::mutex mu_;  // guards state_: held only to copy or replace the pointer
  std::shared_ptr<const PolicyState> state_;
  Certificates certificates_;
  Metrics metrics_;
  RecentDecisions recent_;  // for the live page
  LoadHistory loads_;
  mutable std::mutex allocation_mu_;  // guards the three below
  std::string allocation_svg_, allocation_error_;
  int64_t allocation_time_ = 0;
  DecisionLogWriter* log_ = nullptr;
  std::atomic<bool> draining_{false};
};

// ---- connections ----------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

// The connections open from each client address, shared by the loops.
class ClientBudget {
 public:
  explicit ClientBudget(size_t per_client) : max_(per_client) {}

  bool Take(const std::string& client) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t& mine = open_[client];
    if (mine >= max_) return false;
    ++mine;
    return true;
  }
  void Give(const std::string& client) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = open_.find(client);
    if (it != open_.end() && --it->second == 0) open_.erase(it);
  }

 private:
  std::mutex mu_;
  size_t max_;
  std::unordered_map<std::string, size_t> open_;
};

// A listening socket: the TLS listener, or the admin listener (plain HTTP,
// local: /v1/authorize and /metrics).
struct Listener {
  int fd = -1;
  bool admin = false;
};

// One event loop: a thread, an epoll set, the listening sockets shared with
// the other loops (EPOLLEXCLUSIVE wakes one of them), and the connections it
// accepted, at most its share of maxConnections: a loop that is full closes
// its own connection that waited longest without a whole request head, so
// that slow clients cannot lock out a new one (the liveness probe).
// A connection's request is answered on the loop's thread.
class Loop {
 public:
  Loop(Server* server, const ServerOptions& options, SSL_CTX* ctx, std::vector<Listener> listeners,
       ClientBudget* budget, size_t max_connections)
      : server_(server), options_(options), ctx_(ctx), listeners_(std::move(listeners)), budget_(budget),
        max_connections_(max_connections) {
    limits_.max_head_bytes = options.max_header_bytes;
    limits_.max_headers = options.max_headers;
    limits_.max_body_bytes = options.max_body_bytes;
  }
  ~Loop() {
    if (wake_fd_ >= 0) close(wake_fd_);
    if (epoll_fd_ >= 0) close(epoll_fd_);
  }

  bool Open() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd_ < 0 || wake_fd_ < 0) return false;
    struct epoll_event ev{};
    for (size_t i = 0; i < listeners_.size(); ++i) {
      ev.events = EPOLLIN | EPOLLEXCLUSIVE;
      ev.data.u64 = kListenTag + i;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listeners_[i].fd, &ev) != 0) return false;
    }
    ev.events = EPOLLIN;
    ev.data.u64 = kWakeTag;
    return epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) == 0;
  }

  // From another thread: stop accepting, finish the requests begun, return.
  void Stop() {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);
  }

  void Run() {
    std::array<struct epoll_event, 64> events;
    Clock::time_point next_sweep = Clock::now();
    for (;;) {
      int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), again_.empty() ? 100 : 0);
      for (int i = 0; i < n; ++i) {
        uint64_t tag = events[i].data.u64;
        if (tag >= kListenTag && tag < kListenTag + listeners_.size()) {
          if (!stopping_) Accept(listeners_[tag - kListenTag]);
        } else if (tag == kWakeTag) {
          uint64_t v;
          [[maybe_unused]] ssize_t r = read(wake_fd_, &v, sizeof v);
          BeginDrain();
        } else {
          auto it = conns_.find(static_cast<int>(tag));
          if (it != conns_.end()) Drive(*it->second);
        }
      }
      // Connections that stopped with work left (their turn was over): no
      // socket event may come for what they already hold.
      std::vector<int> again;
      again.swap(again_);
      for (int fd : again) {
        auto it = conns_.find(fd);
        if (it != conns_.end()) Drive(*it->second);
      }
      Clock::time_point now = Clock::now();
      if (accept_paused_ && !stopping_ && now >= resume_accepting_at_) ResumeAccepting();
      if (now >= next_sweep) {
        Sweep(now);
        next_sweep = now + std::chrono::milliseconds(100);
      }
      if (stopping_ && conns_.empty()) return;
    }
  }

 private:
  static constexpr uint64_t kListenTag = uint64_t{1} << 40;
  static constexpr uint64_t kWakeTag = uint64_t{1} << 41;
  // kLinger: the answer was sent and the connection is closing; what the
  // client still sends is read and dropped for a moment, so that the close
  // does not reset the connection before the client has read the answer.
  enum Phase { kHandshake, kIdle, kHead, kBody, kWrite, kLinger };

  struct Conn {
    explicit Conn(const HttpLimits& limits) : parser(limits) {}
    int fd = -1;
    SSL* ssl = nullptr;  // null on the admin listener: plain HTTP
    bool admin = false;
    std::string client;
    Phase phase = kHandshake;
    Clock::time_point since, deadline;
    RequestParser parser;
    std::string in;
    size_t in_off = 0;
    std::string out;
    size_t out_off = 0;
    bool close_after_write = false;
    bool continue_sent = false;
    bool eof = false;
    bool want_write = false;
    uint32_t events = 0;
  };

  static std::chrono::seconds Seconds(int n) { return std::chrono::seconds(n); }

  void Enter(Conn& c, Phase phase, std::chrono::seconds timeout) {
    c.phase = phase;
    c.since = Clock::now();
    c.deadline = c.since + timeout;
  }

  void Accept(const Listener& listener) {
    for (int i = 0; i < 64; ++i) {
      struct sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      int fd = accept4(listener.fd, reinterpret_cast<struct sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        // EAGAIN: another loop took it, or none is left. Out of descriptors
        // or memory: the socket stays readable, so stop listening for a
        // moment rather than spin.
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) PauseAccepting();
        return;
      }
      std::string client = ClientOf(addr);
      std::optional<Metrics::Refusal> refused;
      if (!budget_->Take(client)) {
        refused = Metrics::kPerClient;
      } else if (conns_.size() >= max_connections_ && !Evict()) {
        budget_->Give(client);
        refused = Metrics::kTotal;
      }
      if (refused) {
        server_->metrics().connections_refused[*refused].fetch_add(1, std::memory_order_relaxed);
        // A reset rather than a close: the client learns at once.
        struct linger lg{1, 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        close(fd);
        continue;
      }
      int one = 1;
      if (addr.ss_family != AF_UNIX) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto conn = std::make_unique<Conn>(limits_);
      conn->fd = fd;
      conn->admin = listener.admin;
      conn->client = std::move(client);
      if (listener.admin) {
        Enter(*conn, kIdle, Seconds(options_.idle_timeout_seconds));
      } else {
        conn->ssl = SSL_new(ctx_);
        if (conn->ssl == nullptr || SSL_set_fd(conn->ssl, fd) != 1) {
          ERR_clear_error();
          if (conn->ssl) SSL_free(conn->ssl);
          budget_->Give(conn->client);
          close(fd);
          continue;
        }
        SSL_set_accept_state(conn->ssl);
        Enter(*conn, kHandshake, Seconds(options_.handshake_timeout_seconds));
      }
      struct epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = static_cast<uint64_t>(fd);
      conn->events = EPOLLIN;
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
      server_->metrics().connections_open.fetch_add(1, std::memory_order_relaxed);
      Conn& c = *conn;
      conns_.emplace(fd, std::move(conn));
      Drive(c);
    }
  }

  void PauseAccepting() {
    if (accept_paused_) return;
    for (const Listener& l : listeners_) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, l.fd, nullptr);
    accept_paused_ = true;
    resume_accepting_at_ = Clock::now() + std::chrono::milliseconds(100);
  }
  void ResumeAccepting() {
    for (size_t i = 0; i < listeners_.size(); ++i) {
      struct epoll_event ev{};
      ev.events = EPOLLIN | EPOLLEXCLUSIVE;
      ev.data.u64 = kListenTag + i;
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listeners_[i].fd, &ev);
    }
    accept_paused_ = false;
  }

  // The client's address, for its budget; the clients of the admin unix
  // socket are one client.
  static std::string ClientOf(const struct sockaddr_storage& addr) {
    if (addr.ss_family == AF_UNIX) return "unix";
    char buf[INET6_ADDRSTRLEN] = "";
    if (addr.ss_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<const struct sockaddr_in*>(&addr)->sin_addr, buf, sizeof buf);
    } else if (addr.ss_family == AF_INET6) {
      const auto* a6 = reinterpret_cast<const struct sockaddr_in6*>(&addr);
      if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
        inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], buf, sizeof buf);
      } else {
        inet_ntop(AF_INET6, &a6->sin6_addr, buf, sizeof buf);
      }
    }
    return buf;
  }

  // Every connection was taken: closes this loop's connection that has
  // waited longest without a whole request head (in its handshake, its
  // head, or idle between requests). False when it has none.
  bool Evict() {
    Conn* victim = nullptr;
    for (auto& [fd, c] : conns_) {
      if (c->phase != kHandshake && c->phase != kHead && c->phase != kIdle) continue;
      if (victim == nullptr || c->since < victim->since) victim = c.get();
    }
    if (victim == nullptr) return false;
    server_->metrics().connections_evicted.fetch_add(1, std::memory_order_relaxed);
    Close(*victim);
    return true;
  }

  void Close(Conn& c) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
    if (c.ssl != nullptr) SSL_free(c.ssl);
    close(c.fd);
    budget_->Give(c.client);
    server_->metrics().connections_open.fetch_sub(1, std::memory_order_relaxed);
    conns_.erase(c.fd);  // c is gone
  }

  void BeginDrain() {
    stopping_ = true;
    if (!accept_paused_) {
      for (const Listener& l : listeners_) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, l.fd, nullptr);
    }
    std::vector<Conn*> idle;
    for (auto& [fd, c] : conns_) {
      if ((c->phase == kHandshake || c->phase == kIdle) && c->out.empty()) idle.push_back(c.get());
    }
    for (Conn* c : idle) Close(*c);
  }

  // Closes or answers the connections whose deadline has passed.
  void Sweep(Clock::time_point now) {
    std::vector<Conn*> late;
    for (auto& [fd, c] : conns_) {
      if (c->deadline <= now) late.push_back(c.get());
    }
    Metrics& m = server_->metrics();
    for (Conn* c : late) {
      switch (c->phase) {
        case kHandshake: m.connection_timeouts[Metrics::kHandshake].fetch_add(1); Close(*c); break;
        case kIdle: m.connection_timeouts[Metrics::kIdle].fetch_add(1); Close(*c); break;
        case kWrite: m.connection_timeouts[Metrics::kWrite].fetch_add(1); Close(*c); break;
        case kLinger: Close(*c); break;
        case kHead:
          m.connection_timeouts[Metrics::kHead].fetch_add(1);
          Fail(*c, 408, Cat("the request head did not arrive within ", options_.header_timeout_seconds,
                            " s (limits.headerTimeoutSeconds)"));
          Drive(*c);
          break;
        case kBody:
          m.connection_timeouts[Metrics::kBody].fetch_add(1);
          Fail(*c, 408, Cat("the request body did not arrive within ", options_.read_timeout_seconds,
                            " s (limits.readTimeoutSeconds)"));
          Drive(*c);
          break;
      }
    }
  }

  // Answers with an error and closes: what follows on the connection cannot
  // be read as a request any more.
  void Fail(Conn& c, int status, std::string message) {
    Response r;
    server_->Error(c.parser.request(), r, status, message);
    c.out.clear();
    c.out_off = 0;
    c.close_after_write = true;
    Queue(c, r, false, false);
  }

  // Writes the answer into c.out and waits for it to be sent.
  void Queue(Conn& c, const Response& r, bool head_only, bool keep_alive) {
    bool http10 = c.parser.request().minor_version == 0;
    std::string& o = c.out;
    CatAppend(&o, "HTTP/1.1 ", r.status, " ", ReasonPhrase(r.status), "\r\nContent-Type: ", r.content_type,
              "\r\nContent-Length: ", r.body.size(), "\r\n");
    for (const auto& [name, value] : r.headers) CatAppend(&o, name, ": ", value, "\r\n");
    if (!keep_alive) {
      o += "Connection: close\r\n";
      c.close_after_write = true;
    } else if (http10) {
      o += "Connection: keep-alive\r\n";
    }
    o += "\r\n";
    if (!head_only) o += r.body;
    Enter(c, kWrite, Seconds(options_.write_timeout_seconds));
  }

  // The request is whole: inflate, answer, and get ready for the next one.
  void Answer(Conn& c) {
    HttpRequest& q = c.parser.mutable_request();
    if (q.encoding != ContentEncoding::kIdentity) {
      Inflated inflated = Inflate(q.body, q.encoding, options_.max_inflated_body_bytes);
      if (inflated.status != 200) return Fail(c, inflated.status, inflated.message);
      q.body = std::move(inflated.body);
    }
    Response r;
    try {
      server_->Handle(q, r, c.admin);
    } catch (const std::exception& e) {  // std::bad_alloc from a large request, say
      return Fail(c, 500, Cat("internal error: ", e.what()));
    }
    Queue(c, r, q.method == "HEAD", q.keep_alive && !stopping_);
    c.parser.Reset();
    c.continue_sent = false;
  }

  // After bytes were fed to the parser: moves the connection on.
  void Advance(Conn& c) {
    if (c.phase == kIdle && c.parser.started()) Enter(c, kHead, Seconds(options_.header_timeout_seconds));
    switch (c.parser.state()) {
      case RequestParser::kHead: break;
      case RequestParser::kBody:
        if (c.phase == kHead) {
          Enter(c, kBody, Seconds(options_.read_timeout_seconds));
          if (c.parser.request().expect_continue && !c.continue_sent) {
            c.out = "HTTP/1.1 100 Continue\r\n\r\n";
            c.continue_sent = true;
          }
        }
        break;
      case RequestParser::kComplete: Answer(c); break;
      case RequestParser::kError: Fail(c, c.parser.error_status(), c.parser.error_message()); break;
    }
  }

  // Records what OpenSSL (or, for a plain connection, the socket) waits
  // for; false on a fault (the connection must close).
  bool Blocked(Conn& c, int rc) {
    if (c.ssl == nullptr) {
      if (rc == kWouldBlockRead || rc == kWouldBlockWrite) {
        c.want_write = rc == kWouldBlockWrite;
        return true;
      }
      return false;
    }
    int e = SSL_get_error(c.ssl, rc);
    ERR_clear_error();
    if (e == SSL_ERROR_WANT_READ) {
      c.want_write = false;
      return true;
    }
    if (e == SSL_ERROR_WANT_WRITE) {
      c.want_write = true;
      return true;
    }
    return false;
  }

  // Moves the connection as far as its socket allows: handshake, write what
  // is pending, parse what was read, read more. Reads only when nothing is
  // waiting to be written, so pipelined requests are answered in order and
  // a client that does not read its answers stops being read.
  void Drive(Conn& c) {
    if (c.phase == kLinger) return Linger(c);
    bool progress = false;
    for (int round = 0; round < 16; ++round) {
      progress = false;
      if (c.phase == kHandshake) {
        ERR_clear_error();
        int rc = SSL_accept(c.ssl);
        if (rc != 1) {
          if (options_.client_ca.empty()) {
            if (!Blocked(c, rc)) return Close(c);
          } else {
            // Read before Blocked() clears OpenSSL's error queue.
            std::optional<Metrics::CertRefusal> refusal = CertificateRefused(c);
            if (!Blocked(c, rc)) {
              if (!refusal) return Close(c);
              // OpenSSL has sent its alert; a close now, with the request a
              // TLS 1.3 client sends at once unread, would reset the
              // connection before the client reads why.
              server_->metrics().client_certificates_refused[*refusal].fetch_add(1);
              return StartLinger(c, false);
            }
          }
          break;
        }
        Enter(c, kIdle, Seconds(options_.idle_timeout_seconds));
        progress = true;
      }
      if (c.out_off < c.out.size()) {
        ERR_clear_error();
        size_t left = std::min<size_t>(c.out.size() - c.out_off, INT_MAX);
        int n = c.ssl != nullptr ? SSL_write(c.ssl, c.out.data() + c.out_off, static_cast<int>(left))
                                 : PlainWrite(c, c.out.data() + c.out_off, left);
        if (n <= 0) {
          if (!Blocked(c, n)) return Close(c);
          break;
        }
        c.out_off += static_cast<size_t>(n);
        progress = true;
        if (c.out_off < c.out.size()) continue;
      }
      if (!c.out.empty()) {  // all sent
        c.out.clear();
        c.out_off = 0;
        if (c.close_after_write) return StartLinger(c);
        if (c.phase == kWrite) {
          Enter(c, kIdle, Seconds(options_.idle_timeout_seconds));
          if (stopping_ && c.in_off == c.in.size()) return Close(c);
        }
      }
      if (c.in_off < c.in.size()) {
        size_t used = c.parser.Feed(std::string_view(c.in).substr(c.in_off));
        c.in_off += used;
        if (c.in_off == c.in.size()) {
          c.in.clear();
          c.in_off = 0;
        }
        Advance(c);
        if (used > 0 || !c.out.empty()) progress = true;
        if (!c.out.empty()) continue;
      }
      if (c.eof) {
        // The client closed its side: nothing more will come.
        if (c.out.empty()) return Close(c);
        break;
      }
      if (c.out.empty() && c.in_off == c.in.size()) {
        char buf[16384];
        ERR_clear_error();
        int n = c.ssl != nullptr ? SSL_read(c.ssl, buf, sizeof buf) : PlainRead(c, buf, sizeof buf);
        if (n > 0) {
          c.in.append(buf, static_cast<size_t>(n));
          progress = true;
        } else {
          int e = c.ssl != nullptr ? SSL_get_error(c.ssl, n) : n == 0 ? SSL_ERROR_ZERO_RETURN : SSL_ERROR_SYSCALL;
          if (e == SSL_ERROR_ZERO_RETURN) {
            ERR_clear_error();
            c.eof = true;
            progress = true;
          } else if (!Blocked(c, n)) {
            return Close(c);
          }
        }
      }
      if (!progress) break;
    }
    if (progress) again_.push_back(c.fd);  // its turn is over, not its work
    uint32_t want = c.want_write ? EPOLLOUT : EPOLLIN;
    if (want != c.events) {
      struct epoll_event ev{};
      ev.events = want;
      ev.data.u64 = static_cast<uint64_t>(c.fd);
      epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
      c.events = want;
    }
  }

  // A plain connection's read and write, returning as SSL_read and
  // SSL_write do: the bytes moved, 0 at the end of the stream, or below 0
  // (kWouldBlockRead or kWouldBlockWrite when the socket is not ready).
  static constexpr int kWouldBlockRead = -2, kWouldBlockWrite = -3;
  static int PlainRead(Conn& c, char* buf, size_t size) {
    for (;;) {
      ssize_t n = recv(c.fd, buf, size, 0);
      if (n >= 0) return static_cast<int>(n);
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK ? kWouldBlockRead : -1;
    }
  }
  static int PlainWrite(Conn& c, const char* data, size_t size) {
    for (;;) {
      ssize_t n = send(c.fd, data, std::min<size_t>(size, INT_MAX), MSG_NOSIGNAL);
      if (n > 0) return static_cast<int>(n);
      if (n < 0 && errno == EINTR) continue;
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? kWouldBlockWrite : -1;
    }
  }

  // Why a handshake that failed was refused, when it was for the client
  // certificate: none was sent, or it did not verify.
  static std::optional<Metrics::CertRefusal> CertificateRefused(Conn& c) {
    if (SSL_get_verify_result(c.ssl) != X509_V_OK) return Metrics::kCertUnverified;
    for (unsigned long e : {ERR_peek_error(), ERR_peek_last_error()}) {
      if (ERR_GET_LIB(e) != ERR_LIB_SSL) continue;
      if (ERR_GET_REASON(e) == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) return Metrics::kCertMissing;
      if (ERR_GET_REASON(e) == SSL_R_CERTIFICATE_VERIFY_FAILED) return Metrics::kCertUnverified;
    }
    return std::nullopt;
  }

  // close_notify: false after a TLS fault (OpenSSL has sent an alert, and
  // the connection may not be shut down).
  void StartLinger(Conn& c, bool close_notify = true) {
    ERR_clear_error();
    if (c.ssl != nullptr && close_notify) SSL_shutdown(c.ssl);  // ours; the client's is not awaited
    ERR_clear_error();
    shutdown(c.fd, SHUT_WR);
    c.phase = kLinger;
    c.deadline = Clock::now() + std::chrono::seconds(2);
    if (c.events != EPOLLIN) {
      struct epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = static_cast<uint64_t>(c.fd);
      epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
      c.events = EPOLLIN;
    }
    Linger(c);
  }

  // Reads and drops what the client still sends, until it closes or the
  // lingering time (2 s) is over.
  void Linger(Conn& c) {
    char buf[16384];
    for (int i = 0; i < 64; ++i) {
      ssize_t n = recv(c.fd, buf, sizeof buf, 0);
      if (n > 0) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
      return Close(c);
    }
  }

  Server* server_;
  const ServerOptions& options_;
  SSL_CTX* ctx_;
  std::vector<Listener> listeners_;
  ClientBudget* budget_;
  size_t max_connections_;
  HttpLimits limits_;
  int epoll_fd_ = -1, wake_fd_ = -1;
  bool stopping_ = false;
  bool accept_paused_ = false;
  Clock::time_point resume_accepting_at_;
  std::unordered_map<int, std::unique_ptr<Conn>> conns_;
  std::vector<int> again_;
};

// A listening socket on HOST:PORT (PORT 0: one the kernel picks), non-blocking.
int Listen(const std::string& host, int port, int* bound_port) {
  struct addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  struct addrinfo* found = nullptr;
  std::string service = Cat(port);
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (struct addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return -1;
  struct sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<struct sockaddr*>(&addr), &len);
  *bound_port = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<struct sockaddr_in6*>(&addr)->sin6_port
                                                 : reinterpret_cast<struct sockaddr_in*>(&addr)->sin_port);
  return fd;
}

// The admin listener's unix socket: made with mode 0600 (0660 and of a group
// when one is given: the group is set before the mode), after a socket file
// left behind by a server that is gone (nothing accepts on it) is removed;
// removed when the server stops, if it is still the one this server made.
class UnixSocket {
 public:
  UnixSocket() = default;
  UnixSocket(const UnixSocket&) = delete;
  UnixSocket& operator=(const UnixSocket&) = delete;
  ~UnixSocket() { Remove(); }

  // Listens on path, non-blocking; an error says why not. group: -1, or the
  // group whose members may connect too.
  absl::StatusOr<int> Listen(const std::string& path, gid_t group) {
    struct sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
      return absl::InvalidArgumentError(
          Cat("unix:", path, ": the path is longer than ", sizeof addr.sun_path - 1, " bytes"));
    }
    std::copy(path.begin(), path.end(), addr.sun_path);
    auto* sa = reinterpret_cast<struct sockaddr*>(&addr);
    struct stat st{};
    if (lstat(path.c_str(), &st) == 0) {
      if (!S_ISSOCK(st.st_mode)) {
        return absl::AlreadyExistsError(Cat(path, ": exists and is not a socket (not replaced)"));
      }
      // A socket file: in use if something accepts on it, else stale.
      int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (probe < 0) return absl::InternalError(Cat(path, ": cannot make a socket"));
      int rc = connect(probe, sa, sizeof addr);
      int err = errno;
      close(probe);
      if (rc == 0) {
        return absl::AlreadyExistsError(Cat(path, ": a server is listening on it (another charter serve?)"));
      }
      if (err != ECONNREFUSED) {
        return absl::PermissionDeniedError(
            Cat(path, ": cannot tell whether a server listens on it: ", std::strerror(err)));
      }
      if (unlink(path.c_str()) != 0) {
        return absl::PermissionDeniedError(Cat(path, ": cannot remove the stale socket: ", std::strerror(errno)));
      }
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return absl::InternalError(Cat(path, ": cannot make a socket"));
    // The mode is set as the file is made (the umask, which is the
    // process's: no other thread makes files at this point), so that no
    // other user may connect before the chmod below.
    mode_t old = umask(0177);
    int rc = bind(fd, sa, sizeof addr);
    int err = errno;
    umask(old);
    if (rc != 0) {
      close(fd);
      return absl::PermissionDeniedError(Cat("unix:", path, ": cannot listen: ", std::strerror(err)));
    }
    if (lstat(path.c_str(), &st) == 0) {
      path_ = path;
      dev_ = st.st_dev;
      ino_ = st.st_ino;
    }
    bool grouped = group != static_cast<gid_t>(-1);
    if ((grouped && chown(path.c_str(), static_cast<uid_t>(-1), group) != 0) ||
        chmod(path.c_str(), grouped ? 0660 : 0600) != 0 || listen(fd, SOMAXCONN) != 0) {
      err = errno;
      close(fd);
      Remove();
      return absl::PermissionDeniedError(Cat("unix:", path, ": cannot listen: ", std::strerror(err)));
    }
    return fd;
  }

  void Remove() {
    if (path_.empty()) return;
    struct stat st{};
    if (lstat(path_.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_) unlink(path_.c_str());
    path_.clear();
  }

 private:
  std::string path_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

// A group by name, or by number.
absl::StatusOr<gid_t> GroupId(const std::string& name) {
  std::vector<char> buf(16384);
  struct group g{};
  struct group* found = nullptr;
  if (getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &found) == 0 && found != nullptr) return found->gr_gid;
  unsigned long n = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  if (ec == std::errc() && end == name.data() + name.size() && n < static_cast<unsigned long>(INT_MAX)) {
    return static_cast<gid_t>(n);
  }
  return absl::NotFoundError(Cat("`", name, "` is not a group here (a name or a number)"));
}

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
  std::vector<std::string> files = {options.files.bundle, options.files.entities, options.tls_cert, options.tls_key,
                                    options.client_ca};
  files.insert(files.end(), options.files.schemas.begin(), options.files.schemas.end());
  // Policy sources, when the server compiles them: a change is a reload.
  files.insert(files.end(), options.files.policies.begin(), options.files.policies.end());
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

absl::Status ParseAdminListen(std::string_view listen, ServerOptions* options) {
  constexpr std::string_view kWhat =
      "the admin listener is plain HTTP, for this machine only: give unix:PATH, 127.0.0.1:PORT or [::1]:PORT";
  if (listen.substr(0, 5) == "unix:") {
    std::string_view path = listen.substr(5);
    if (path.empty()) return absl::InvalidArgumentError(Cat("`", S(listen), "`: the socket's path is empty"));
    if (path.size() >= sizeof(sockaddr_un::sun_path)) {
      return absl::InvalidArgumentError(
          Cat("`", S(listen), "`: the path is longer than ", sizeof(sockaddr_un::sun_path) - 1, " bytes"));
    }
    options->admin_unix = S(path);
    return absl::OkStatus();
  }
  ServerOptions parsed;
  if (absl::Status s = ParseListen(listen, &parsed); !s.ok()) {
    return absl::InvalidArgumentError(Cat(S(s.message()), ": ", S(kWhat)));
  }
  bool loopback = false;
  struct in_addr v4{};
  struct in6_addr v6{};
  bool empty_host = listen.substr(0, listen.rfind(':')).empty();
  if (!empty_host && inet_pton(AF_INET, parsed.host.c_str(), &v4) == 1) {
    loopback = (ntohl(v4.s_addr) >> 24) == 127;
  } else if (!empty_host && inet_pton(AF_INET6, parsed.host.c_str(), &v6) == 1) {
    loopback = IN6_IS_ADDR_LOOPBACK(&v6);
  }
  if (!loopback) {
    return absl::InvalidArgumentError(Cat("`", S(listen), "` is not a loopback address: ", S(kWhat)));
  }
  options->admin_host = parsed.host;
  options->admin_port = parsed.port;
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

  absl::StatusOr<std::shared_ptr<const PolicyState>> state = PolicyState::Load(options.files, options.mapping.join, options.enforcement);
  if (!state.ok()) {
    Say(Cat("error: ", OneLine(state.status().message())));
    return 1;
  }
  Server server(options, *state);
  if (absl::Status s = server.RefreshAllocation(**state); !s.ok()) {
    Say(Cat("error: --workloads: ", OneLine(s.message())));
    return 1;
  }
  if (absl::Status s = server.certificates().Load(options.tls_cert, options.tls_key, options.client_ca); !s.ok()) {
    Say(Cat("error: ", OneLine(s.message())));
    return 1;
  }
  std::unique_ptr<DecisionLogWriter> log;
  if (!options.decision_log.empty()) {
    DecisionLogOptions o;
    o.path = options.decision_log;
    o.queue_lines = options.decision_log_queue;
    o.queue_bytes = options.decision_log_queue_bytes;
    o.stop_timeout = std::chrono::seconds(options.decision_log_stop_timeout_seconds);
    o.max_bytes = options.decision_log_max_bytes;
    o.keep = options.decision_log_keep;
    absl::StatusOr<std::unique_ptr<DecisionLogWriter>> opened = DecisionLogWriter::Open(o, &server.metrics().log);
    if (!opened.ok()) {
      Say(Cat("error: ", OneLine(opened.status().message())));
      return 1;
    }
    log = *std::move(opened);
    server.set_log(log.get());
  }

  std::unique_ptr<SSL_CTX, void (*)(SSL_CTX*)> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (ctx == nullptr) {
    Say("error: cannot set up TLS");
    return 1;
  }
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                                  SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_cert_cb(ctx.get(), &Certificates::Select, &server.certificates());
  if (!options.client_ca.empty()) {
    // Every handshake asks for a client certificate and fails without one
    // that verifies against the CAs Certificates::Select installs. No
    // session is resumed, so that every connection is checked against the
    // CAs loaded when it is made (a reload may have replaced them).
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    SSL_CTX_set_verify_depth(ctx.get(), options.client_chain_depth);
    static const unsigned char kSessionContext[] = "charter serve";
    SSL_CTX_set_session_id_context(ctx.get(), kSessionContext, sizeof kSessionContext - 1);
    SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
    SSL_CTX_set_num_tickets(ctx.get(), 0);
  }

  // The admin listener first: if it cannot be had, nothing listens.
  UnixSocket admin_socket;
  int admin_fd = -1, admin_port = 0;
  std::string admin_where;
  if (!options.admin_unix.empty()) {
    gid_t group = static_cast<gid_t>(-1);
    if (!options.admin_group.empty()) {
      absl::StatusOr<gid_t> g = GroupId(options.admin_group);
      if (!g.ok()) {
        Say(Cat("error: --admin-group: ", OneLine(g.status().message())));
        return 1;
      }
      group = *g;
    }
    absl::StatusOr<int> fd = admin_socket.Listen(options.admin_unix, group);
    if (!fd.ok()) {
      Say(Cat("error: --admin-listen: ", OneLine(fd.status().message())));
      return 1;
    }
    admin_fd = *fd;
    admin_where = Cat("unix:", options.admin_unix);
  } else if (options.admin_port >= 0) {
    admin_fd = Listen(options.admin_host, options.admin_port, &admin_port);
    if (admin_fd < 0) {
      Say(Cat("error: --admin-listen: cannot listen on ", options.admin_host, ":", options.admin_port,
              " (in use, or not an address here)"));
      return 1;
    }
    std::string h = options.admin_host.find(':') != std::string::npos ? Cat("[", options.admin_host, "]")
                                                                       : options.admin_host;
    admin_where = Cat("http://", h, ":", admin_port);
  }

  int port = 0;
  int listen_fd = Listen(options.host, options.port, &port);
  if (listen_fd < 0) {
    if (options.port == 0) {
      Say(Cat("error: cannot listen on ", options.host));
    } else {
      Say(Cat("error: cannot listen on ", options.host, ":", options.port, " (in use, or not an address here)"));
    }
    return 1;
  }
  ClientBudget budget(static_cast<size_t>(options.max_connections_per_client));
  int threads = options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, options.max_connections);
  std::vector<std::unique_ptr<Loop>> loops;
  for (int i = 0; i < threads; ++i) {
    // maxConnections shared out: the first loops take the remainder.
    size_t share = static_cast<size_t>(options.max_connections / threads + (i < options.max_connections % threads));
    std::vector<Listener> listeners = {{listen_fd, false}};
    if (admin_fd >= 0) listeners.push_back({admin_fd, true});
    loops.push_back(std::make_unique<Loop>(&server, options, ctx.get(), std::move(listeners), &budget, share));
    if (!loops.back()->Open()) {
      Say("error: cannot set up the event loops (epoll)");
      close(listen_fd);
      return 1;
    }
  }
  std::string host = options.host.find(':') != std::string::npos ? Cat("[", options.host, "]") : options.host;
  if (!options.client_ca.empty()) {
    int cas = server.certificates().client_ca_count();
    Say(Cat("client certificates required, verified against ", options.client_ca, " (", cas, " CA certificate",
            cas == 1 ? "" : "s", ")"));
  }
  if (admin_fd >= 0) Say(Cat("admin listening on ", admin_where, " (/v1/authorize, /metrics, /healthz, /readyz)"));
  if (!(*state)->enforcement().enforces_all()) Say((*state)->enforcement().Describe());
  Say(Cat("listening on https://", host, ":", port, " (bundle ", (*state)->bundle_hash(), ", ",
          (*state)->engine().policy_count(), " policies",
          (*state)->schema() == nullptr ? ""
          : (*state)->untyped_join() ? "; reviews' entities checked against the schema at load"
                                     : "; reviews' entities read with the schema",
          ")"));
  std::vector<std::thread> workers;
  for (auto& loop : loops) workers.emplace_back([l = loop.get()] { l->Run(); });

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
        if (log != nullptr) log->Reopen();  // logrotate moved the file away
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
  // Each loop closes its idle connections and returns once the requests
  // begun are answered (each bounded by its own deadlines).
  for (auto& loop : loops) loop->Stop();
  for (std::thread& t : workers) t.join();
  close(listen_fd);
  if (admin_fd >= 0) close(admin_fd);
  admin_socket.Remove();
  log.reset();  // writes what is queued, within decisionLog.stopTimeoutSeconds
  if (watch.fd >= 0) close(watch.fd);
  close(sfd);
  Say("stopped");
  return 0;
}

}  // namespace charter::server
