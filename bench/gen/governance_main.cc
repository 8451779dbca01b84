// Writes a generated governance world (see governance.h) as files:
// DIR/policies.cedar, DIR/tightened.cedar, DIR/entities.json,
// DIR/previous.json and DIR/decision-log.jsonl, the inputs of `charter
// access`, `charter audit --previous` and `charter diff --decision-log`.
//
//   charter_governance_workload [--projects N] [--teams N] [--clusters N]
//       [--connections N] [--members N] [--entities N] [--policies N]
//       [--requests N] [--seed S] --out DIR
//
// It prints the world's sizes and a member and connection to query.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/gen/governance.h"

namespace {

int Usage(const char* message) {
  std::fprintf(stderr,
               "charter_governance_workload: %s\n"
               "usage: charter_governance_workload [--projects N] [--teams N] [--clusters N] [--connections N]\n"
               "       [--members N] [--entities N] [--policies N] [--requests N] [--seed S] --out DIR\n",
               message);
  return 2;
}

bool ParseCount(const char* text, unsigned long long* out) {
  char* end = nullptr;
  errno = 0;
  *out = std::strtoull(text, &end, 10);
  return errno == 0 && end != text && *end == '\0' && text[0] != '-';
}

bool Write(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "charter_governance_workload: %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) std::fprintf(stderr, "charter_governance_workload: %s: write failed\n", path.c_str());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  charter::bench::GovernanceOptions options;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") return Usage("generated governance worlds");
    if (i + 1 >= argc) return Usage(("missing value for " + flag).c_str());
    const char* value = argv[++i];
    if (flag == "--out") {
      out = value;
      continue;
    }
    unsigned long long n = 0;
    if (!ParseCount(value, &n)) return Usage(("not a number: " + flag + " " + value).c_str());
    if (flag == "--projects") {
      options.projects = n;
    } else if (flag == "--teams") {
      options.teams_per_project = n;
    } else if (flag == "--clusters") {
      options.clusters = n;
    } else if (flag == "--connections") {
      options.connections_per_project = n;
    } else if (flag == "--members") {
      options.members = n;
    } else if (flag == "--entities") {
      options.entities = n;
    } else if (flag == "--policies") {
      options.policies = n;
    } else if (flag == "--requests") {
      options.requests = n;
    } else if (flag == "--seed") {
      options.seed = n;
    } else {
      return Usage(("unknown flag " + flag).c_str());
    }
  }
  if (out.empty()) return Usage("--out is required");
  charter::bench::GovernanceWorld w = charter::bench::GenerateGovernance(options);
  bool ok = Write(out + "/policies.cedar", w.policies) && Write(out + "/tightened.cedar", w.tightened) &&
            Write(out + "/entities.json", w.entities) && Write(out + "/previous.json", w.previous) &&
            Write(out + "/decision-log.jsonl", w.decision_log);
  if (!ok) return 1;
  std::printf("%zu entities (%zu tasks), %zu connections, %zu policies; member %s, connection %s\n",
              w.entity_count, w.task_count, w.connection_count, w.policy_count, w.member.c_str(),
              w.connections.empty() ? "" : w.connections.front().c_str());
  return 0;
}
