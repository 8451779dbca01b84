// The decision log's line, written and read back, and its writer: a queue,
// a thread, and the file it reopens and rotates (decision_log.h).
#include "decision_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <utility>

#include "admission_review.h"
#include "charter/json.h"
#include "charter_support/strings.h"
#include "json_write.h"

namespace charter::server {

using support::Cat;
using support::CatAppend;
using support::S;

namespace {

void Say(std::string_view line) {
  std::string out = Cat("charter serve: decision log: ", S(line), "\n");
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
}

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

// "1:COL" of a byte offset on one line, the column in characters.
std::string At(std::string_view line, size_t offset) {
  size_t column = 1;
  for (size_t i = 0; i < offset && i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xc0) != 0x80) ++column;
  }
  return Cat("1:", column);
}

}  // namespace

Outcome OutcomeOf(const Decision& decision, bool subject_access_review) {
  if (decision.allowed) return Outcome::kAllow;
  if (subject_access_review && !ForbidDetermined(decision)) return Outcome::kNoOpinion;
  return Outcome::kDeny;
}

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kAllow: return "allow";
    case Outcome::kDeny: return "deny";
    case Outcome::kNoOpinion: return "no opinion";
  }
  return "deny";
}

// ---- the line --------------------------------------------------------------------

std::string DecisionLogLine(const DecisionLogEntry& e, const std::vector<std::string>& mask) {
  const Decision& d = *e.decision;
  std::string line = Cat("{\"time\":", Quoted(NowRfc3339()), ",\"endpoint\":", Quoted(e.endpoint),
                         ",\"uid\":", Quoted(e.uid), ",\"principal\":", Quoted(e.principal.ToString()),
                         ",\"action\":", Quoted(e.action.ToString()), ",\"resource\":",
                         Quoted(e.resource.ToString()), ",\"decision\":", Quoted(OutcomeName(e.outcome)),
                         ",\"reasons\":[");
  for (size_t i = 0; i < d.reasons.size(); ++i) CatAppend(&line, i ? "," : "", Quoted(d.reasons[i]));
  line += "],\"errors\":[";
  for (size_t i = 0; i < d.errors.size(); ++i) {
    CatAppend(&line, i ? "," : "", "{\"policy\":", Quoted(d.errors[i].policy_id), ",\"message\":",
              Quoted(d.errors[i].message), "}");
  }
  CatAppend(&line, "],\"bundle\":", Quoted(e.bundle), ",\"latency_us\":", static_cast<int64_t>(e.seconds * 1e6),
            ",\"request\":");
  std::vector<std::string> masked;
  std::optional<JsonDocument> request;
  if (!e.request_json.empty()) {
    absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(e.request_json);
    if (doc.ok()) request = *std::move(doc);
  }
  if (request.has_value()) {
    AppendCompact(&line, e.request_json, request->root(), &mask);
    std::optional<JsonValue> context = request->root().is_object() ? request->root().Find("context") : std::nullopt;
    if (context.has_value() && context->is_object()) {
      for (size_t i = 0; i < context->size(); ++i) {
        if (std::find(mask.begin(), mask.end(), context->key(i)) != mask.end()) {
          masked.push_back(Cat("context.", S(context->key(i))));
        }
      }
    }
  } else {
    line += "null";
  }
  line += ",\"entities\":";
  if (e.entities_json.empty() || !request.has_value()) {
    line += "null";
  } else if (e.entities_json.find_first_of("\n\r") == std::string_view::npos) {
    // The mapping writes its entities compact, on one line.
    line += e.entities_json;
  } else {
    absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(e.entities_json);
    if (doc.ok()) {
      AppendCompact(&line, e.entities_json, doc->root());
    } else {
      line += "null";
    }
  }
  if (e.unenforced != nullptr && !e.unenforced->empty()) {
    CatAppend(&line, ",\"enforcement\":{\"answered\":", Quoted(OutcomeName(e.answered)), ",\"notEnforced\":[");
    for (size_t i = 0; i < e.unenforced->size(); ++i) {
      const Unenforced& u = (*e.unenforced)[i];
      CatAppend(&line, i ? "," : "", Quoted(Cat(EnforcementName(u.mode), ":", u.policy)));
    }
    line += "]}";
  }
  line += ",\"masked\":[";
  for (size_t i = 0; i < masked.size(); ++i) CatAppend(&line, i ? "," : "", Quoted(masked[i]));
  line += "]}\n";
  return line;
}

absl::StatusOr<LoggedDecision> ReadDecisionLogLine(std::string_view line) {
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(line);
  if (!doc.ok()) return doc.status();
  JsonValue root = doc->root();
  auto fault = [&](size_t offset, std::string_view what) {
    return absl::InvalidArgumentError(Cat(At(line, offset), ": ", S(what)));
  };
  if (!root.is_object()) return fault(root.offset(), "a decision-log line is a JSON object");
  LoggedDecision out;
  auto string_member = [&](std::string_view name, std::string* to) -> absl::Status {
    std::optional<JsonValue> v = root.Find(name);
    if (!v.has_value()) return absl::OkStatus();
    if (!v->is_string()) return fault(v->offset(), Cat("`", S(name), "` must be a string"));
    *to = S(v->as_string());
    return absl::OkStatus();
  };
  auto strings_member = [&](std::string_view name, std::vector<std::string>* to) -> absl::Status {
    std::optional<JsonValue> v = root.Find(name);
    if (!v.has_value() || v->is_null()) return absl::OkStatus();
    if (!v->is_array()) return fault(v->offset(), Cat("`", S(name), "` must be an array of strings"));
    for (size_t i = 0; i < v->size(); ++i) {
      JsonValue s = v->at(i);
      if (!s.is_string()) return fault(s.offset(), Cat("`", S(name), "` must be an array of strings"));
      to->push_back(S(s.as_string()));
    }
    return absl::OkStatus();
  };
  if (absl::Status s = string_member("endpoint", &out.endpoint); !s.ok()) return s;
  if (absl::Status s = string_member("bundle", &out.bundle); !s.ok()) return s;
  if (absl::Status s = string_member("time", &out.time); !s.ok()) return s;
  if (std::optional<JsonValue> t = root.Find("time"); t.has_value()) out.time_offset = t->offset();
  if (root.Find("decision").has_value()) {
    std::string decision;
    if (absl::Status s = string_member("decision", &decision); !s.ok()) return s;
    out.decision = std::move(decision);
  }
  if (absl::Status s = strings_member("reasons", &out.reasons); !s.ok()) return s;
  if (absl::Status s = strings_member("masked", &out.masked); !s.ok()) return s;
  if (std::optional<JsonValue> errors = root.Find("errors"); errors.has_value() && !errors->is_null()) {
    if (!errors->is_array()) return fault(errors->offset(), "`errors` must be an array");
    for (size_t i = 0; i < errors->size(); ++i) {
      JsonValue e = errors->at(i);
      std::optional<JsonValue> policy = e.is_object() ? e.Find("policy") : std::nullopt;
      if (!policy.has_value() || !policy->is_string()) {
        return fault(e.offset(), "an error of `errors` is an object with a `policy` string");
      }
      std::string id = S(policy->as_string());
      if (id == "(mapping)") {
        std::optional<JsonValue> message = e.Find("message");
        out.mapping_error = message.has_value() && message->is_string() ? S(message->as_string()) : "(no message)";
      } else {
        out.error_policies.push_back(std::move(id));
      }
    }
  }
  if (std::optional<JsonValue> request = root.Find("request"); request.has_value() && !request->is_null()) {
    if (!request->is_object()) return fault(request->offset(), "`request` must be an object");
    out.request_begin = request->offset();
    out.request_end = JsonValueEnd(line, out.request_begin);
  }
  if (std::optional<JsonValue> entities = root.Find("entities"); entities.has_value()) {
    out.has_entities = true;
    if (!entities->is_null()) {
      if (!entities->is_array()) return fault(entities->offset(), "`entities` must be an array of entities");
      out.entities_begin = entities->offset();
      out.entities_end = JsonValueEnd(line, out.entities_begin);
    }
  }
  return out;
}

// ---- the writer -------------------------------------------------------------------

struct DecisionLogWriter::Shared {
  std::mutex mu;
  std::condition_variable wake, done;
  std::deque<std::string> queue;
  size_t pending_lines = 0, pending_bytes = 0;
  size_t max_lines = 0, max_bytes = 0;
  bool stopping = false, finished = false, abandoned = false, reopen = false;
  DecisionLogCounters* counters = nullptr;  // not touched once abandoned

  // The writer thread's own: the file.
  int fd = -1;
  bool owned = false;  // a file of ours (not stdout)
  std::string path;
  uint64_t size = 0;       // of the file now written
  uint64_t rotate_at = 0;  // maxBytes; 0: no rotation
  uint64_t limit = 0;      // rotate past this size: rotate_at, or later after a failure
  int keep = 0;
};

namespace {

using Shared = DecisionLogWriter::Shared;

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

int OpenAppend(const std::string& path, uint64_t* size) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return fd;
  struct stat st{};
  *size = fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return fd;
}

// Opens the path again; keeps the file it has when it cannot.
bool ReopenFile(Shared& s, std::string_view why) {
  uint64_t size = 0;
  int fd = OpenAppend(s.path, &size);
  if (fd < 0) {
    int err = errno;
    s.counters->file_failures.fetch_add(1, std::memory_order_relaxed);
    Say(Cat(s.path, ": cannot open (", S(why), "): ", std::strerror(err), "; still writing to the file open before"));
    return false;
  }
  close(s.fd);
  s.fd = fd;
  s.size = size;
  s.limit = s.rotate_at;
  return true;
}

// After a rotation that failed: not again before as many bytes more.
void Postpone(Shared& s) {
  s.counters->file_failures.fetch_add(1, std::memory_order_relaxed);
  s.limit = s.size + s.rotate_at;
}

// PATH.keep removed, PATH.i -> PATH.(i+1), PATH -> PATH.1, a new PATH.
void Rotate(Shared& s) {
  std::string last = Cat(s.path, ".", s.keep);
  if (unlink(last.c_str()) != 0 && errno != ENOENT) {
    Say(Cat(last, ": cannot remove to rotate: ", std::strerror(errno), "; not rotated"));
    Postpone(s);
    return;
  }
  for (int i = s.keep - 1; i >= 1; --i) {
    std::string from = Cat(s.path, ".", i), to = Cat(s.path, ".", i + 1);
    if (rename(from.c_str(), to.c_str()) != 0 && errno != ENOENT) {
      int err = errno;
      s.counters->file_failures.fetch_add(1, std::memory_order_relaxed);
      Say(Cat(from, ": cannot rename to ", to, ": ", std::strerror(err)));
    }
  }
  std::string first = Cat(s.path, ".1");
  if (rename(s.path.c_str(), first.c_str()) != 0 && errno != ENOENT) {
    Say(Cat(s.path, ": cannot rename to ", first, ": ", std::strerror(errno), "; not rotated"));
    Postpone(s);
    return;
  }
  s.counters->rotated.fetch_add(1, std::memory_order_relaxed);
  if (!ReopenFile(s, "rotated")) Postpone(s);
}

void Run(std::shared_ptr<Shared> s) {
  std::deque<std::string> batch;
  for (;;) {
    bool reopen = false;
    {
      std::unique_lock<std::mutex> lock(s->mu);
      s->wake.wait(lock, [&s] { return s->stopping || s->reopen || !s->queue.empty(); });
      reopen = s->reopen;
      s->reopen = false;
      if (!reopen && s->queue.empty()) {
        s->finished = true;
        s->done.notify_all();
        return;
      }
      batch.swap(s->queue);
    }
    if (reopen && s->owned && ReopenFile(*s, "SIGHUP")) {
      std::lock_guard<std::mutex> lock(s->mu);
      if (s->abandoned) return;
      s->counters->reopened.fetch_add(1, std::memory_order_relaxed);
    }
    for (const std::string& line : batch) {
      if (s->owned && s->rotate_at > 0 && s->size > 0 && s->size + line.size() > s->limit) Rotate(*s);
      bool ok = WriteAll(s->fd, line);
      if (ok) s->size += line.size();
      std::lock_guard<std::mutex> lock(s->mu);
      if (s->abandoned) return;
      s->pending_lines -= 1;
      s->pending_bytes -= line.size();
      s->counters->queue_bytes.store(s->pending_bytes, std::memory_order_relaxed);
      (ok ? s->counters->written : s->counters->dropped).fetch_add(1, std::memory_order_relaxed);
    }
    batch.clear();
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<DecisionLogWriter>> DecisionLogWriter::Open(const DecisionLogOptions& options,
                                                                           DecisionLogCounters* counters) {
  auto s = std::make_shared<Shared>();
  s->counters = counters;
  s->max_lines = options.queue_lines;
  s->max_bytes = options.queue_bytes;
  s->path = options.path;
  if (options.path == "-") {
    if (options.max_bytes > 0) {
      return absl::InvalidArgumentError(
          "--decision-log -: stdout cannot be rotated (decisionLog.maxBytes, --decision-log-max-bytes): give a file");
    }
    s->fd = STDOUT_FILENO;
  } else {
    if (options.keep < 1) return absl::InvalidArgumentError("decision log: keep at least 1 rotated file");
    s->fd = OpenAppend(options.path, &s->size);
    if (s->fd < 0) {
      return absl::InvalidArgumentError(
          Cat(options.path, ": cannot open the decision log for appending: ", std::strerror(errno)));
    }
    s->owned = true;
    s->rotate_at = s->limit = options.max_bytes;
    s->keep = options.keep;
  }
  std::unique_ptr<DecisionLogWriter> writer(new DecisionLogWriter(std::move(s), options.stop_timeout));
  return writer;
}

DecisionLogWriter::DecisionLogWriter(std::shared_ptr<Shared> shared, std::chrono::seconds stop_timeout)
    : shared_(std::move(shared)), stop_timeout_(stop_timeout) {
  writer_ = std::thread([s = shared_] { Run(s); });
}

DecisionLogWriter::~DecisionLogWriter() { Stop(); }

void DecisionLogWriter::Push(std::string line) {
  Shared& s = *shared_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    // INVARIANT: pending_lines and pending_bytes count the lines queued and
    // those the writer has taken and not yet written.
    if (s.stopping || s.queue.size() >= s.max_lines || s.pending_bytes + line.size() > s.max_bytes) {
      s.counters->dropped.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    s.pending_lines += 1;
    s.pending_bytes += line.size();
    s.counters->queue_bytes.store(s.pending_bytes, std::memory_order_relaxed);
    s.queue.push_back(std::move(line));
  }
  s.wake.notify_one();
}

void DecisionLogWriter::Reopen() {
  Shared& s = *shared_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.stopping) return;
    s.reopen = true;
  }
  s.wake.notify_one();
}

void DecisionLogWriter::Stop() {
  if (!writer_.joinable()) return;
  std::chrono::milliseconds deadline = stop_timeout_;
  Shared& s = *shared_;
  std::unique_lock<std::mutex> lock(s.mu);
  s.stopping = true;
  s.wake.notify_one();
  if (s.done.wait_for(lock, deadline, [&s] { return s.finished; })) {
    lock.unlock();
    writer_.join();
    if (s.owned) close(s.fd);
    return;
  }
  s.abandoned = true;
  size_t lost = s.pending_lines;
  s.counters->dropped.fetch_add(lost, std::memory_order_relaxed);
  lock.unlock();
  writer_.detach();
  Say(Cat("the output is still blocked after ", deadline.count() / 1000.0, " s: ", lost,
          " line(s) not written (decisionLog.stopTimeoutSeconds)"));
}

}  // namespace charter::server
