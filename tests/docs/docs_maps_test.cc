// Keeps the maps of the documentation true: the pages that say what exists
// (README.md's Status, docs/README.md's index, docs/cli.md's commands) are
// compared with what the build and the tree hold, and every sentence that
// says something is missing or still to come is one that was checked.
//
//   StatusListsEveryCommand  `charter --help` against README.md's Status table
//                            and docs/cli.md's sections and synopsis
//   IndexesListEveryPage     docs/README.md and README.md's Documentation
//                            section link every docs/*.md
//   EveryLinkResolves        every relative link of README.md and docs/*.md
//                            names a file that exists, and a heading of it
//                            when it has an #anchor
//   EveryNotYetIsChecked     a sentence that says "not yet", "planned", ...
//                            is one of kStillTrue below, each with the
//                            reason it still holds
//   ScenarioCountIsTrue      "N scenarios" is the count of
//                            tests/schedule/cycle/scenarios/rules.json, and
//   RecordedExtensionCaseCountIsTrue  "N cases recorded from Cedar" that of
//                            tests/core/extensions/extension_cases.inc
//
// Run from the repository root (charter_test's working directory).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "charter/json.h"
#include "gtest/gtest.h"
#include "re2/re2.h"

namespace charter {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// README.md and docs/*.md, in name order.
std::vector<std::string> Documents() {
  std::vector<std::string> docs;
  for (const fs::directory_entry& e : fs::directory_iterator("docs")) {
    if (e.path().extension() == ".md") docs.push_back(e.path().generic_string());
  }
  std::sort(docs.begin(), docs.end());
  docs.insert(docs.begin(), "README.md");
  return docs;
}

// The lines of `text` outside fenced blocks (fences start in column 0, as
// docs_examples_test reads them); a fenced line becomes empty, so that line
// numbers stay those of the file.
std::vector<std::string> ProseLines(std::string_view text) {
  std::vector<std::string> lines = Lines(text);
  bool fenced = false;
  for (std::string& line : lines) {
    bool fence = line.rfind("```", 0) == 0;
    if (fenced || fence) line.clear();
    if (fence) fenced = !fenced;
  }
  return lines;
}

// The lines of a document's `## TITLE` section, up to the next `## `.
std::vector<std::string> Section(const std::string& file, std::string_view title) {
  std::vector<std::string> out;
  bool in = false, found = false;
  for (const std::string& line : ProseLines(ReadText(file))) {
    if (line.rfind("## ", 0) == 0) {
      if (in) break;
      in = found = line.substr(3) == title;
      continue;
    }
    if (in) out.push_back(line);
  }
  EXPECT_TRUE(found) << file << " has no `## " << title << "` section";
  return out;
}

// Which bytes of `text` are inside an inline code span, as CommonMark reads
// them: a run of N backticks opens a span that the next run of exactly N
// closes (an unclosed run is literal).
std::vector<bool> InCode(std::string_view text) {
  std::vector<bool> code(text.size(), false);
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '`') {
      ++i;
      continue;
    }
    size_t run = text.find_first_not_of('`', i);
    if (run == std::string_view::npos) run = text.size();
    size_t n = run - i, close = run;
    for (;;) {
      close = text.find('`', close);
      if (close == std::string_view::npos) break;
      size_t end = text.find_first_not_of('`', close);
      if (end == std::string_view::npos) end = text.size();
      if (end - close == n) break;
      close = end;
    }
    if (close == std::string_view::npos) {
      i = run;
      continue;
    }
    for (size_t end = close + n; i < end; ++i) code[i] = true;
  }
  return code;
}

// The text with its inline code spans removed: a message quoted in a span
// ("`br` is not supported") is the program's text, not the page's claim.
std::string WithoutCode(std::string_view text) {
  std::vector<bool> code = InCode(text);
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!code[i]) out.push_back(text[i]);
  }
  return out;
}

// --- the commands ------------------------------------------------------------

#ifdef CHARTER_CLI_PATH
// The subcommands `charter --help` lists: the lines after "Subcommands:",
// each a name and its description.
std::set<std::string> HelpCommands() {
  std::string command = std::string("'") + CHARTER_CLI_PATH + "' --help";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  if (pipe == nullptr) return {};
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << command << " failed:\n" << out;
  std::set<std::string> names;
  bool in = false;
  for (const std::string& line : Lines(out)) {
    if (line == "Subcommands:") {
      in = true;
      continue;
    }
    std::string name;
    if (in && RE2::FullMatch(line, R"(  ([a-z][a-z-]*)  .*)", &name)) names.insert(name);
    if (line.empty()) in = false;
  }
  EXPECT_GE(names.size(), 10u) << "no subcommands found in the output of " << command << ":\n" << out;
  return names;
}

// Reports each name on one side only.
void ExpectSame(const std::set<std::string>& help, const std::set<std::string>& doc,
                const std::string& where) {
  std::set<std::string> missing, extra;
  std::set_difference(help.begin(), help.end(), doc.begin(), doc.end(),
                      std::inserter(missing, missing.end()));
  std::set_difference(doc.begin(), doc.end(), help.begin(), help.end(),
                      std::inserter(extra, extra.end()));
  for (const std::string& c : missing) {
    ADD_FAILURE() << where << " does not name `charter " << c << "`, which `charter --help` lists";
  }
  for (const std::string& c : extra) {
    ADD_FAILURE() << where << " names `charter " << c << "`, which `charter --help` does not list";
  }
}

TEST(DocsMaps, StatusListsEveryCommand) {
  std::set<std::string> help = HelpCommands();
  // README.md's Status: a table row `| `charter NAME` | what it does |` each.
  std::set<std::string> status;
  for (const std::string& line : Section("README.md", "Status")) {
    std::string name, does;
    if (!RE2::FullMatch(line, R"(\| `charter ([a-z-]+)` \| (.*) \|)", &name, &does)) continue;
    EXPECT_TRUE(status.insert(name).second) << "README.md's Status has two rows for `charter " << name << "`";
    EXPECT_GE(does.size(), 20u) << "README.md's Status: the row of `charter " << name
                                << "` does not say what it does";
  }
  ExpectSame(help, status, "README.md's Status table");

  // docs/cli.md: a `## ` heading naming each command, and a synopsis line.
  std::set<std::string> headings, synopsis;
  std::string cli = ReadText("docs/cli.md");
  for (const std::string& line : ProseLines(cli)) {
    if (line.rfind("## ", 0) != 0) continue;
    re2::StringPiece input(line);
    std::string name;
    while (RE2::FindAndConsume(&input, R"(`charter ([a-z-]+)`)", &name)) headings.insert(name);
  }
  ExpectSame(help, headings, "docs/cli.md's `## ` headings");
  std::vector<std::string> lines = Lines(cli);
  auto first_block = std::find_if(lines.begin(), lines.end(),
                                   [](const std::string& l) { return l == "```text"; });
  ASSERT_NE(first_block, lines.end()) << "docs/cli.md has no ```text synopsis";
  for (auto it = first_block + 1; it != lines.end() && *it != "```"; ++it) {
    std::string name;
    if (RE2::PartialMatch(*it, R"(^charter ([a-z][a-z-]*)\b)", &name)) synopsis.insert(name);
  }
  ExpectSame(help, synopsis, "docs/cli.md's synopsis (its first ```text block)");
}
#endif

// --- the indexes and the links -----------------------------------------------

// The targets of the relative links `[text](target)` of some prose lines.
std::vector<std::string> LinkTargets(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    std::string text = WithoutCode(line);
    re2::StringPiece input(text);
    std::string target;
    while (RE2::FindAndConsume(&input, R"(\]\(([^)\s]+)\))", &target)) {
      if (!RE2::PartialMatch(target, R"(^[a-z]+:)")) out.push_back(target);
    }
  }
  return out;
}

std::set<std::string> LinkedPages(const std::vector<std::string>& lines, const std::string& prefix) {
  std::set<std::string> pages;
  for (const std::string& target : LinkTargets(lines)) {
    std::string page = target.substr(0, target.find('#'));
    if (page.rfind(prefix, 0) == 0 && page.find('/', prefix.size()) == std::string::npos &&
        fs::path(page).extension() == ".md") {
      pages.insert(page.substr(prefix.size()));
    }
  }
  return pages;
}

TEST(DocsMaps, IndexesListEveryPage) {
  std::set<std::string> pages;
  for (const fs::directory_entry& e : fs::directory_iterator("docs")) {
    std::string name = e.path().filename().string();
    if (e.path().extension() == ".md" && name != "README.md") pages.insert(name);
  }
  ASSERT_GE(pages.size(), 10u);
  std::set<std::string> index = LinkedPages(ProseLines(ReadText("docs/README.md")), "");
  std::set<std::string> readme = LinkedPages(Section("README.md", "Documentation"), "docs/");
  for (const std::string& page : pages) {
    EXPECT_TRUE(index.count(page)) << "docs/README.md does not link docs/" << page;
    EXPECT_TRUE(readme.count(page)) << "README.md's Documentation section does not link docs/" << page;
  }
}

// GitHub's anchor of a heading: lower case, spaces to hyphens, and every
// character but letters, digits, `_` and `-` dropped (the headings here are
// ASCII but for a symbol or two, which GitHub drops too); a repeated anchor
// gets -1, -2, ...
std::set<std::string> ReadAnchors(const std::string& file) {
  std::set<std::string> anchors;
  for (const std::string& line : ProseLines(ReadText(file))) {
    std::string title;
    if (!RE2::FullMatch(line, R"(#+ (.*?)\s*)", &title)) continue;
    std::string anchor;
    for (char c : title) {
      unsigned char u = static_cast<unsigned char>(c);
      if (std::isalnum(u) || c == '_' || c == '-') {
        anchor.push_back(static_cast<char>(std::tolower(u)));
      } else if (c == ' ') {
        anchor.push_back('-');
      }
    }
    std::string unique = anchor;
    for (int i = 1; anchors.count(unique); ++i) unique = anchor + "-" + std::to_string(i);
    anchors.insert(unique);
  }
  return anchors;
}

TEST(DocsMaps, EveryLinkResolves) {
  std::map<std::string, std::set<std::string>> anchors;  // by page
  int links = 0;
  for (const std::string& file : Documents()) {
    std::vector<std::string> lines = ProseLines(ReadText(file));
    for (size_t i = 0; i < lines.size(); ++i) {
      for (const std::string& target : LinkTargets({lines[i]})) {
        ++links;
        size_t hash = target.find('#');
        std::string page = target.substr(0, hash);
        fs::path path = page.empty() ? fs::path(file) : fs::path(file).parent_path() / page;
        std::string where = file + ":" + std::to_string(i + 1) + ": the link to `" + target + "`";
        if (!fs::exists(path)) {
          ADD_FAILURE() << where << " names " << path.lexically_normal().generic_string()
                        << ", which does not exist";
          continue;
        }
        if (hash == std::string::npos || path.extension() != ".md") continue;
        std::string anchor = target.substr(hash + 1);
        std::string key = path.lexically_normal().generic_string();
        if (!anchors.count(key)) anchors[key] = ReadAnchors(key);
        EXPECT_TRUE(anchors[key].count(anchor))
            << where << ": " << path.lexically_normal().generic_string() << " has no heading #" << anchor;
      }
    }
  }
  EXPECT_GE(links, 100);
}

// --- "not yet" ---------------------------------------------------------------

// Words that say something is missing, partial or still to come.
constexpr char kNotYet[] =
    R"((?i)\byet\b|not supported|unsupported|\bTODO\b|\bFIXME\b|\bTBD\b|\bplanned\b|)"
    R"(in progress|under way|still to be|later issue|\bcoming\b|(?-i:^Until\b))";

const RE2& NotYet() {
  static const RE2* re = new RE2(kNotYet);
  return *re;
}

// The sentences with those words that were checked and still hold, each
// with the reason. A sentence with those words that is not here fails the
// test: either what it says is missing now exists (then change the
// sentence), or it still holds (then add it here, with why). A sentence
// here that no page says any more fails too. In a section whose heading has
// those words ("## Not yet"), the first sentence of each paragraph or item
// counts as such a sentence.
struct StillTrue {
  const char* file;
  const char* sentence;  // as the test prints it: its whitespace collapsed to one space
  const char* why;
};
constexpr StillTrue kStillTrue[] = {
    {"docs/conformance.md", "Not yet covered",
     "what the campaigns leave out; each item below checked against tests/oracle/gen.js and "
     "differential.js"},
    {"docs/conformance.md",
     "A link whose `args` name a slot other than `?principal` and `?resource` (`\"?context\"`): "
     "cedar-wasm's API refuses it while reading its input (`unknown variant`), before linking, so "
     "the generators write a link with a slot the template lacks only with the other of the two names.",
     "gen.js writes only ?principal and ?resource slots"},
    {"docs/conformance.md",
     "Entity and context JSON holding malformed extension values (`{\"__extn\": {\"fn\": \"ip\", "
     "\"arg\": \"01.2.3.4\"}}`): the widened families put malformed literals in the policy text only; "
     "a bad value in the data makes the whole batch an error of both engines, which teaches little.",
     "gen.js's ext-malformed family writes policy literals only"},
    {"docs/conformance.md",
     "Error messages are not compared, only decisions, determining policies and erroring ids (and, "
     "for validation and schema-directed data, whether each engine accepts).",
     "differential.js compares decisions, reasons and erroring ids"},
    {"docs/conformance.md",
     "`{\"__extn\": {\"fn\": \"unknown\", ...}}`, the unknown value of Cedar's partial evaluation, "
     "is accepted by cedar-wasm in entity and context JSON and refused by Charter, which does not do "
     "partial evaluation.",
     "Charter's residuals (charter query --residual) take no unknown values from JSON"},
    {"docs/conformance.md",
     "Integers stay within ±2^53 in JSON inputs, since JavaScript cannot carry more; overflow is "
     "still reached through arithmetic on literals in the policy text.",
     "cedar-wasm takes JavaScript numbers"},
    {"docs/diagnostics.md",
     "An unknown or unsupported extension function: `unknown`, or a name that is not a function in "
     "an `__extn` escape or an expression object.",
     "what CH0312 reports, not something missing"},
    {"docs/diagnostics.md",
     "| CH0200 | a construct that parsed but was not compiled yet | when the compiler gained the "
     "whole language; everything that parses and passes the checks above now compiles |",
     "the table of retired codes: history"},
    {"docs/query.md",
     "`charter query` lists the resources a principal may act on, or the principals allowed on a "
     "resource; with `--residual` it prints instead the *condition* under which an entity of a type, "
     "not known yet, is allowed: a filter to push into a database query or a Kubernetes label selector.",
     "a residual's entity is unknown by definition"},
    {"docs/server.md",
     "Its type follows its kind: `Kubernetes::Pod` (core Pod), `Kubernetes::Job` (batch Job), "
     "`Kubernetes::PyTorchJob` (kubeflow.org), `Kubernetes::Workload` (kueue.x-k8s.io), "
     "`Kubernetes::Object` for any other; its id is `NAMESPACE/NAME` (`generateName` when a CREATE "
     "has no name yet).",
     "an object created with generateName has no name at admission"},
    {"docs/server.md",
     "The figures on a quiet machine (issue 34's targets) are still to be taken; "
     "[performance.md](performance.md) has cpp-httplib's earlier ones.",
     "performance.md's `charter serve` targets are unjudged until bench-serve runs on a quiet machine"},
    {"docs/server.md", "Not yet", "the server's limits; each item below checked against server/"},
    {"docs/server.md",
     "The live page's allocation is read from a file at each reload, not watched: a workloads file that "
     "changes is drawn again on the next SIGHUP.",
     "server.cc calls RefreshAllocation at start and in Reload only; the watcher watches policy sources"},
    {"docs/server.md", "No HTTP/2.", "server/http.cc reads HTTP/1.0 and 1.1 only"},
    {"docs/server.md",
     "A request is decided on its loop's thread: a review that takes long to decide (a large body) "
     "delays the other connections of that loop by as long.",
     "server/server.cc answers a connection's request on its loop's thread"},
    {"docs/server.md",
     "The budget per client is by source address: clients behind one address (a NAT, or pods whose "
     "traffic leaves the node with the node's address) share it.",
     "server/server.cc's ClientBudget counts connections by address"},
};

// A heading, paragraph, list item or table row of a page, its lines joined.
struct Paragraph {
  std::string text;
  int line = 0;
  bool in_not_yet_section = false;
};

std::vector<Paragraph> Paragraphs(const std::string& file) {
  std::vector<Paragraph> out;
  std::vector<std::string> lines = ProseLines(ReadText(file));
  Paragraph current;
  int not_yet_level = 0;  // the level of the "Not yet" heading we are under, or 0
  auto flush = [&] {
    if (!current.text.empty()) out.push_back(current);
    current = Paragraph{};
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::string hashes, title;
    bool heading = RE2::FullMatch(line, R"((#+) (.*))", &hashes, &title);
    bool item = RE2::PartialMatch(line, R"(^\s*([-*]|\d+\.) )");
    bool row = line.rfind("|", 0) == 0;
    if (line.empty() || heading || item || row) flush();
    if (line.empty()) continue;
    if (heading) {
      int level = static_cast<int>(hashes.size());
      if (not_yet_level != 0 && level <= not_yet_level) not_yet_level = 0;
      out.push_back(Paragraph{title, static_cast<int>(i + 1), false});
      if (RE2::PartialMatch(WithoutCode(title), NotYet())) not_yet_level = level;
      continue;
    }
    if (current.text.empty()) {
      current.line = static_cast<int>(i + 1);
      current.in_not_yet_section = not_yet_level != 0;
    }
    std::string text = line;
    RE2::GlobalReplace(&text, R"(^\s*([-*]|\d+\.) )", "");
    current.text += (current.text.empty() ? "" : " ") + text;
    if (row) flush();
  }
  flush();
  return out;
}

// A paragraph's sentences, whitespace collapsed: split after `.`, `!` or
// `?` and a space before an upper-case letter, an opening bracket or a
// backtick, outside code spans.
std::vector<std::string> Sentences(std::string text) {
  RE2::GlobalReplace(&text, R"(\s+)", " ");
  std::vector<bool> code = InCode(text);
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    char c = text[i], next = text[i + 2];
    if (!code[i] && (c == '.' || c == '!' || c == '?') && text[i + 1] == ' ' &&
        (std::isupper(static_cast<unsigned char>(next)) || next == '(' || next == '[' || next == '`')) {
      out.push_back(text.substr(start, i + 1 - start));
      start = i + 2;
    }
  }
  std::string last = text.substr(start);
  while (!last.empty() && last.back() == ' ') last.pop_back();
  if (!last.empty()) out.push_back(last);
  return out;
}

TEST(DocsMaps, EveryNotYetIsChecked) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const std::string& file : Documents()) {
    for (const Paragraph& p : Paragraphs(file)) {
      std::vector<std::string> sentences = Sentences(p.text);
      for (size_t i = 0; i < sentences.size(); ++i) {
        const std::string& s = sentences[i];
        bool flagged = RE2::PartialMatch(WithoutCode(s), NotYet()) || (p.in_not_yet_section && i == 0);
        if (!flagged) continue;
        seen.insert({file, s});
        bool listed = std::any_of(std::begin(kStillTrue), std::end(kStillTrue), [&](const StillTrue& t) {
          return file == t.file && s == t.sentence;
        });
        EXPECT_TRUE(listed) << file << ":" << p.line << ": this sentence says something is missing or "
                            << "to come; if it now exists, say what it does, else add the sentence "
                            << "to kStillTrue with why it holds:\n  " << s;
      }
    }
  }
  for (const StillTrue& t : kStillTrue) {
    EXPECT_TRUE(seen.count({t.file, t.sentence}))
        << "kStillTrue lists a sentence that " << t.file << " no longer says (remove it):\n  " << t.sentence;
  }
}

// --- counts ------------------------------------------------------------------

// Every "N WORDS" on the pages (N with or without thousands commas) equals
// `count`; at least one page says it.
void ExpectFigure(const std::string& words, size_t count, const std::string& source) {
  const RE2 figure("\\b(\\d[\\d,]*) " + words + "\\b");
  ASSERT_TRUE(figure.ok()) << figure.error();
  int stated = 0;
  for (const std::string& file : Documents()) {
    std::vector<std::string> lines = ProseLines(ReadText(file));
    for (size_t i = 0; i < lines.size(); ++i) {
      re2::StringPiece input(lines[i]);
      std::string n;
      while (RE2::FindAndConsume(&input, figure, &n)) {
        ++stated;
        n.erase(std::remove(n.begin(), n.end(), ','), n.end());
        EXPECT_EQ(n, std::to_string(count)) << file << ":" << i + 1 << " says " << n << " " << words
                                             << "; " << source << " has " << count;
      }
    }
  }
  EXPECT_GE(stated, 1) << "no page says how many " << words << " " << source << " has";
}

// The scheduling scenarios: the entries of rules.json's "scenarios".
TEST(DocsMaps, ScenarioCountIsTrue) {
  std::string text = ReadText("tests/schedule/cycle/scenarios/rules.json");
  absl::StatusOr<JsonDocument> doc = JsonDocument::Parse(text);
  ASSERT_TRUE(doc.ok()) << doc.status();
  std::optional<JsonValue> scenarios = doc->root().Find("scenarios");
  ASSERT_TRUE(scenarios.has_value() && scenarios->is_array());
  ExpectFigure("scenarios", scenarios->size(), "tests/schedule/cycle/scenarios/rules.json");
}

// The extension cases recorded from Cedar: one `KIND_CASE(...)` line each in
// the file oracle_check.js writes.
TEST(DocsMaps, RecordedExtensionCaseCountIsTrue) {
  const char* path = "tests/core/extensions/extension_cases.inc";
  size_t cases = 0;
  for (const std::string& line : Lines(ReadText(path))) {
    if (RE2::PartialMatch(line, R"(^[A-Z][A-Z_]*_CASE\()")) ++cases;
  }
  ASSERT_GE(cases, 1000u) << path;
  ExpectFigure("cases recorded from Cedar", cases, path);
}

}  // namespace
}  // namespace charter
