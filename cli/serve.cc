// `charter serve`: the Kubernetes admission and authorization webhook, and
// Charter's own decisions over HTTPS (docs/server.md). The server itself is
// server/; this file is its command line.
//
//   charter serve (--bundle B | --policies FILE ...) [--entities E] [--schema S ...] --tls-cert C --tls-key K
//                 [--client-ca FILE] [--listen ADDR:PORT] [--admin-listen unix:PATH|127.0.0.1:PORT]
//                 [--admin-group GROUP] [--decision-log FILE|-] [--decision-log-max-bytes N]
//                 [--decision-log-keep K] [--config FILE] [--enforcement deny|warn|dryrun]
//                 [--workloads FILE]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "charter/kueue_history.h"
#include "charter/schedule.h"
#include "command.h"
#include "files.h"
#include "load.h"
#include "pictures.h"
#include "report.h"
#include "schedule.h"
#include "server.h"

namespace charter::cli {
namespace {

struct ServeFlags {
  std::string listen = "127.0.0.1:8443";
  std::string admin_listen;
  std::string config;
  std::string enforcement;
  // Given on the command line, they override the configuration's.
  std::optional<uint64_t> log_max_bytes;
  std::optional<int> log_keep;
  std::string workloads;
  server::ServerOptions options;
};

constexpr size_t kMaxWorkloadsBytes = size_t{1} << 30;

// The live page's allocation: the quota tree of the policies' scheduling
// declarations with what the workloads of `path` hold, read again at every
// reload (docs/server.md#the-live-page).
absl::StatusOr<std::string> DrawAllocation(const std::string& path, const server::PolicyState& state) {
  absl::StatusOr<std::optional<schedule::State>> config = schedule::ReadConfiguration(state.engine());
  if (!config.ok()) return config.status();
  if (!config->has_value()) {
    return absl::InvalidArgumentError(
        "the policies declare no scheduling configuration (no `flavor`, `cohort` or `queue` in a .charter file) "
        "for the workloads to be drawn on");
  }
  absl::StatusOr<std::string> text = ReadFile(path, kMaxWorkloadsBytes);
  if (!text.ok()) return text.status();
  std::vector<kueue::WorkloadHistory> history;
  absl::StatusOr<schedule::State> now = WorkloadsOnto(**config, path, *text, "", &history);
  if (!now.ok()) return now.status();
  ReportInput in;
  in.state = &*now;
  in.history = &history;
  for (const kueue::WorkloadHistory& h : history) {
    for (const std::optional<double>& t : {h.created, h.quota_reserved, h.admitted, h.finished}) {
      if (t) in.now = std::max(in.now, *t);
    }
  }
  return QuotaTreePicture(in);
}

int RunServe(ServeFlags& flags) {
  if (absl::Status s = server::ParseListen(flags.listen, &flags.options); !s.ok()) {
    PrintError("--listen: " + std::string(s.message()));
    return kError;
  }
  if (!flags.admin_listen.empty()) {
    if (absl::Status s = server::ParseAdminListen(flags.admin_listen, &flags.options); !s.ok()) {
      PrintError("--admin-listen: " + std::string(s.message()));
      return kError;
    }
  }
  if (!flags.options.admin_group.empty() && flags.options.admin_unix.empty()) {
    PrintError("--admin-group: only with --admin-listen unix:PATH (the group of the socket file)");
    return kError;
  }
  if (!flags.config.empty()) {
    if (absl::Status s = server::LoadConfig(flags.config, &flags.options); !s.ok()) {
      // A file that does not load, as the server's own files say it.
      std::string line = "charter serve: error: " + Printable(s.message()) + "\n";
      std::fwrite(line.data(), 1, line.size(), stderr);
      return kError;
    }
  }
  if (!flags.enforcement.empty()) {
    absl::StatusOr<server::Enforcement> mode = server::ParseEnforcement(flags.enforcement);
    if (!mode.ok()) {
      PrintError("--enforcement: " + std::string(mode.status().message()));
      return kError;
    }
    flags.options.enforcement = *mode;
  }
  if (flags.log_max_bytes.has_value()) flags.options.decision_log_max_bytes = *flags.log_max_bytes;
  if (flags.log_keep.has_value()) flags.options.decision_log_keep = *flags.log_keep;
  if (flags.options.files.bundle.empty() && flags.options.files.policies.empty()) {
    PrintError("--bundle or --policies is required");
    return kError;
  }
  if (!flags.options.files.policies.empty()) {
    // The files a directory holds at start are the files served (and
    // watched); standard input cannot be read again at a reload.
    for (const std::string& p : flags.options.files.policies) {
      if (p == kStdinPath) {
        PrintError("--policies: serve reads its policy files again at every reload; - (stdin) cannot be");
        return kError;
      }
    }
    absl::StatusOr<std::vector<std::string>> paths = ExpandPolicyPaths(flags.options.files.policies);
    if (!paths.ok()) return Fail(paths.status());
    flags.options.files.policies = *std::move(paths);
  }
  {
    // The decision log is appended to: never to one of the server's inputs.
    const server::ServerOptions& o = flags.options;
    std::vector<std::string> inputs = o.files.policies;
    inputs.insert(inputs.end(), o.files.schemas.begin(), o.files.schemas.end());
    inputs.insert(inputs.end(), {o.files.bundle, o.files.entities, o.tls_cert, o.tls_key, o.client_ca, flags.config});
    if (absl::Status s = CheckNotAnInput(o.decision_log, inputs, "decisions"); !s.ok()) return Fail(s);
  }
  if (!flags.workloads.empty()) {
    if (flags.workloads == kStdinPath) {
      PrintError("--workloads: serve reads the workloads again at every reload; - (stdin) cannot be");
      return kError;
    }
    flags.options.allocation_source = flags.workloads;
    flags.options.allocation = [path = flags.workloads](const server::PolicyState& state) {
      return DrawAllocation(path, state);
    };
  }
  return server::Serve(flags.options) == 0 ? kOk : kError;
}

}  // namespace

Command AddServeCommand(CLI::App& root) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* app = root.add_subcommand(
      "serve", "Serve decisions over HTTPS: Kubernetes admission and authorization webhooks, and /v1/authorize");
  app->footer(
      "Endpoints: POST /v1/authorize, /v1/admission, /v1/authorization; GET /healthz, /readyz, /metrics "
      "(with --admin-listen, /v1/authorize and /metrics are served there only). "
      "SIGHUP reloads the files (as a change to them does); SIGTERM finishes the requests in flight and stops.");
  server::ServerOptions& o = flags->options;
  CLI::Option* bundle = app->add_option("--bundle", o.files.bundle, "The policy bundle (`charter build`)")->type_name("FILE");
  CLI::Option* policies =
      app->add_option("--policies", o.files.policies,
                      "Policy files in place of a bundle, compiled with --schema at start and at every reload (a "
                      "change to one reloads them); a directory, its .cedar and .charter files at start; give it "
                      "again for more")
          ->type_name("PATH")
          ->expected(1)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
          ->allow_extra_args(false);
  bundle->excludes(policies);
  app->add_option("--entities", o.files.entities, "Entities in Cedar's JSON format, joined to every request")
      ->type_name("FILE");
  AddSchemaOption(app, &o.files.schemas,
                  "The schema the bundle was compiled with, in the order `charter build` had them");
  app->add_option("--tls-cert", o.tls_cert, "The server's certificate (PEM, chain after it)")
      ->type_name("FILE")
      ->required();
  app->add_option("--tls-key", o.tls_key, "The certificate's private key (PEM)")->type_name("FILE")->required();
  app->add_option("--client-ca", o.client_ca,
                  "Require a client certificate signed by one of these CAs (PEM) on the TLS listener")
      ->type_name("FILE");
  app->add_option("--listen", flags->listen, "Address and port (default 127.0.0.1:8443; port 0 picks one)")
      ->type_name("ADDR:PORT");
  app->add_option("--admin-listen", flags->admin_listen,
                  "Serve /v1/authorize and /metrics here only, plain HTTP: unix:PATH (mode 0600), "
                  "127.0.0.1:PORT or [::1]:PORT")
      ->type_name("ADDR");
  app->add_option("--admin-group", o.admin_group,
                  "With --admin-listen unix:PATH: the socket is mode 0660 and of this group (a name or number)")
      ->type_name("GROUP");
  app->add_option("--decision-log", o.decision_log, "Append a JSON line a decision to FILE (- for stdout)")
      ->type_name("FILE");
  app->add_option("--decision-log-max-bytes", flags->log_max_bytes,
                  "Rotate the decision log before it passes N bytes (FILE becomes FILE.1); 0: never (the default)")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 50));
  app->add_option("--decision-log-keep", flags->log_keep, "Rotated decision logs kept, FILE.1 ... FILE.K (default 5)")
      ->type_name("K")
      ->check(CLI::Range(1, 1000));
  app->add_option("--workloads", flags->workloads,
                  "Kueue Workload objects (or the state format) whose quota the live page (/ui) draws on the "
                  "policies' queues; read again at every reload")
      ->type_name("FILE");
  app->add_option("--config", flags->config, "The server's configuration (JSON; docs/server.md)")->type_name("FILE");
  app->add_option("--enforcement", flags->enforcement,
                  "Rollout mode over every policy's own: deny (default), warn (allow, with a warning) or dryrun "
                  "(allow, logged only); overrides the configuration's")
      ->type_name("MODE");
  return Command{app, [flags] { return RunServe(*flags); }};
}

}  // namespace charter::cli
