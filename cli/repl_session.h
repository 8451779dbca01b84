// The REPL's state: what is loaded (policies, entities, schema), the
// current request and context, and the words Tab completes. Session::Run
// runs one entry (repl_commands.cc); loading is in repl_session.cc.
#ifndef CHARTER_CLI_REPL_SESSION_H_
#define CHARTER_CLI_REPL_SESSION_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "charter/charter.h"
#include "charter/schema.h"
#include "repl_words.h"

namespace charter::cli {

struct ReplFlags {
  std::vector<std::string> policies;  // files, directories (ExpandPolicyPaths)
  std::string entities;
  std::vector<std::string> schemas;  // read as one
};

class Session {
 public:
  explicit Session(const ReplFlags& flags)
      : policies_paths_(flags.policies), entities_path_(flags.entities), schema_paths_(flags.schemas) {}

  // Loads the files of the flags.
  void Start();
  // Runs one entry; false to quit.
  bool Run(const Entry& entry);

  // For completion: the entities, entity types and actions known.
  const std::set<std::string>& words() const { return words_; }
  // The attribute names of the value of `expression` (empty if it has none
  // or does not evaluate), and, with a schema, those its type declares.
  std::vector<std::string> AttributesOf(const std::string& expression) const;

 private:
  // Loading (repl_session.cc).
  absl::Status LoadPolicies(const std::vector<std::string>& paths);
  absl::Status LoadEntitiesFile(const std::string& path);
  absl::Status LoadSchema(const std::vector<std::string>& paths);
  void Reload();
  void AddEntityWord(std::string_view type, std::string_view id);
  void CollectWords(const std::string& text);

  // Commands and entries (repl_commands.cc).
  std::string Placed(const std::string& text, size_t offset) const;
  void RequestOrExpression(const std::string& line, size_t offset);
  void Evaluate(const std::string& text, size_t offset);
  absl::StatusOr<Request> ParseRequest(const std::string& line, size_t offset);
  std::string BareAction(const std::string& name) const;
  absl::Status Check(const Request& r) const;
  absl::StatusOr<Request> ReadRequest(const std::string& text, size_t offset);
  void Decide(const std::string& line, size_t offset);
  void Explain(std::string rest, size_t rest_at);
  void SetContext(const std::string& json, size_t at);
  void Edit(const std::string& what);
  void ShowEntities(const std::string& arg);

  std::vector<std::string> policies_paths_;
  std::string entities_path_;
  std::vector<std::string> schema_paths_;
  std::vector<SourceFile> policy_files_;  // every file loaded
  std::unique_ptr<Engine> engine_;
  Entities entities_;
  bool entities_loaded_ = false;
  std::unique_ptr<Schema> schema_;
  std::string context_ = "{}";
  std::optional<Request> current_;
  std::set<std::string> words_;
  std::map<std::string, std::set<std::string>> actions_;  // bare name -> the actions so named
  const Entry* entry_ = nullptr;  // the entry being run
};

}  // namespace charter::cli

#endif  // CHARTER_CLI_REPL_SESSION_H_
