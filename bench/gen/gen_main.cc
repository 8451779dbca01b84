// Writes a generated benchmark workload (see workload.h) as three files,
// DIR/policies.cedar, DIR/entities.json and DIR/requests.json, the inputs of
// `charter bench` and of bench/peer/.
//
//   charter_workload --policies N [--entities N] [--requests N] [--seed S] --out DIR
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/gen/workload.h"

namespace {

int Usage(const char* message) {
  std::fprintf(stderr,
               "charter_workload: %s\n"
               "usage: charter_workload --policies N [--entities N] [--requests N] [--seed S] "
               "--out DIR\n",
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
    std::fprintf(stderr, "charter_workload: %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) std::fprintf(stderr, "charter_workload: %s: write failed\n", path.c_str());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  charter::bench::WorkloadOptions options;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") return Usage("generated governance-shaped workloads");
    if (i + 1 >= argc) return Usage(("missing value for " + flag).c_str());
    const char* value = argv[++i];
    unsigned long long n = 0;
    if (flag == "--out") {
      out = value;
      continue;
    }
    if (!ParseCount(value, &n)) return Usage(("not a number: " + flag + " " + value).c_str());
    if (flag == "--policies") {
      options.policies = n;
    } else if (flag == "--entities") {
      options.entities = n;
    } else if (flag == "--requests") {
      options.requests = n;
    } else if (flag == "--seed") {
      options.seed = n;
    } else {
      return Usage(("unknown flag " + flag).c_str());
    }
  }
  if (out.empty()) return Usage("--out is required");
  charter::bench::Workload w = charter::bench::GenerateWorkload(options);
  bool ok = Write(out + "/policies.cedar", w.policies) &&
            Write(out + "/entities.json", w.entities) &&
            Write(out + "/requests.json", w.requests);
  return ok ? 0 : 1;
}
