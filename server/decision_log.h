// The decision log of `charter serve` (docs/server.md, "Decision log"): its
// line, written and read back, and the file it is written to.
//
//   - DecisionLogLine writes one JSON line a decision: what was decided and
//     everything needed to decide it again, the Charter request and the
//     review's own entities as they were laid over the configured ones,
//     with the context attributes masked (`maskContext`) named in `masked`.
//   - ReadDecisionLogLine reads a line back (`charter diff --decision-log`):
//     the members it needs, their places on the line, faults at a column.
//   - DecisionLogWriter writes lines from a queue bounded in lines and bytes
//     on a thread of its own, reopens its file on request (SIGHUP: a
//     logrotate that moved the file away) and rotates it by size, keeping a
//     bounded number of old files (log.1 ... log.K).
#ifndef CHARTER_SERVER_DECISION_LOG_H_
#define CHARTER_SERVER_DECISION_LOG_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/decision.h"
#include "charter/entities.h"
#include "enforcement.h"

namespace charter::server {

// What a request was answered. A SubjectAccessReview's answer has three
// outcomes: allowed (a permit), denied (a forbid among the determining
// policies) and no opinion (nothing applies: the apiserver asks its next
// authorizer); every other request is allowed or denied.
enum class Outcome { kAllow, kDeny, kNoOpinion };
Outcome OutcomeOf(const Decision& decision, bool subject_access_review);
// "allow", "deny", "no opinion": as the decision log writes them.
std::string_view OutcomeName(Outcome outcome);

// One decision to log. The views must outlive the call only.
struct DecisionLogEntry {
  std::string_view endpoint;  // "authorize", "admission", "authorization"
  std::string_view uid;       // the review's request.uid; empty for the others
  EntityUid principal, action, resource;
  const Decision* decision = nullptr;
  Outcome outcome = Outcome::kDeny;
  std::string_view bundle;  // "sha256:..."
  double seconds = 0;
  // The Charter request decided (JSON text); empty when none was (a review
  // refused by the mapping): written as null.
  std::string_view request_json;
  // The entities laid over the configured ones for this request, a JSON
  // array in Cedar's entity form ("[]" for /v1/authorize); empty: null.
  std::string_view entities_json;
  // What the rollout set aside (enforcement.h), when it set anything aside:
  // the answer given, and each forbid not enforced with its mode (policy ""
  // for "no policy permits it"). `decision` stays the policies' own, so
  // that `charter diff` replays the line.
  const std::vector<Unenforced>* unenforced = nullptr;
  Outcome answered = Outcome::kDeny;
};

// The line, '\n' included:
//   {"time":...,"endpoint":...,"uid":...,"principal":...,"action":...,
//    "resource":...,"decision":"allow"|"deny"|"no opinion","reasons":[...],
//    "errors":[...],"bundle":...,"latency_us":N,"request":{...}|null,
//    "entities":[...]|null,"masked":["context.NAME",...]}
// and, when the rollout set a forbid (or the default deny) aside, before
// "masked": "enforcement":{"answered":"allow"|...,"notEnforced":["warn:ID","dryrun:",...]}
// The members of the request's context named in `mask` are written "***"
// and listed in `masked` (those the request has).
std::string DecisionLogLine(const DecisionLogEntry& entry, const std::vector<std::string>& mask);

// A line read back. Offsets are bytes into the line; npos when the member
// is missing or null.
struct LoggedDecision {
  std::string endpoint;                 // empty when the line has none
  std::string time;                     // as logged (RFC 3339); empty when the line has none
  size_t time_offset = 0;               // where its value starts in the line (for errors)
  std::optional<std::string> decision;  // "allow", "deny", "no opinion" as logged
  std::vector<std::string> reasons;     // the determining policies, as logged
  std::vector<std::string> error_policies;  // the policies that erred, as logged
  std::string mapping_error;  // the message of an error of `(mapping)`: the review was not decided
  std::string bundle;
  size_t request_begin = std::string_view::npos, request_end = std::string_view::npos;
  bool has_entities = false;  // the member is there (lines of servers before it: not)
  size_t entities_begin = std::string_view::npos, entities_end = std::string_view::npos;
  std::vector<std::string> masked;
};

// Faults are InvalidArgument "1:COL: ..." (COL in characters, from 1):
// a line that is not JSON, not an object, or a known member of the wrong
// type. A line may lack any member; the reader of the result decides what
// it needs.
absl::StatusOr<LoggedDecision> ReadDecisionLogLine(std::string_view line);

// Counters the writer keeps, read by the metrics.
struct DecisionLogCounters {
  std::atomic<uint64_t> written{0}, dropped{0}, queue_bytes{0};
  std::atomic<uint64_t> reopened{0}, rotated{0}, file_failures{0};
};

struct DecisionLogOptions {
  std::string path;                    // a file, or "-" for stdout
  size_t queue_lines = 8192;           // lines waiting to be written; more are dropped
  size_t queue_bytes = size_t{16} << 20;  // their bytes; more are dropped
  std::chrono::seconds stop_timeout{5};   // on Stop, for a blocked output
  // Rotation: before a line would take the file past max_bytes, the file
  // becomes PATH.1 (PATH.1 becomes PATH.2, ..., PATH.keep is removed) and
  // a new PATH is begun. 0: no rotation. A line longer than max_bytes
  // alone is written whole into a new file.
  uint64_t max_bytes = 0;
  int keep = 5;  // old files kept, from 1
};

// Lines go into a queue that one thread writes out with write(2); a
// decision never waits for the output: when the queue is full (in lines or
// in bytes) the line is dropped and counted. The file is opened, reopened
// and rotated by that thread only.
class DecisionLogWriter {
 public:
  // Opens the file (appending, created 0666 less the umask); fails when it
  // cannot, or for rotation of stdout.
  static absl::StatusOr<std::unique_ptr<DecisionLogWriter>> Open(const DecisionLogOptions& options,
                                                                 DecisionLogCounters* counters);
  ~DecisionLogWriter();  // Stop()

  void Push(std::string line);

  // Asks the writer to open the file's path again, before any later line:
  // after `mv log log.1` new lines go to a new `log`. A path that cannot be
  // opened is said on stderr and counted; the writer keeps the file it has.
  // Nothing for stdout.
  void Reopen();

  // Writes what is queued, waiting at most the stop timeout for the output:
  // an output that stays blocked (a pipe nobody reads) loses the lines
  // still queued, counted, and the writer is left behind (it owns its
  // state, so the server can go on stopping without it).
  void Stop();

  struct Shared;

 private:
  DecisionLogWriter(std::shared_ptr<Shared> shared, std::chrono::seconds stop_timeout);
  std::shared_ptr<Shared> shared_;
  std::chrono::seconds stop_timeout_;
  std::thread writer_;
};

}  // namespace charter::server

#endif  // CHARTER_SERVER_DECISION_LOG_H_
