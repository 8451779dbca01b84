// The formatter: exact layout on hand-written cases, and on a corpus (the
// oracle generator's policy sets, its saved reproducers, the repository's
// .cedar and .charter files and the fuzz corpora) three properties: the
// output parses to the same AST as the input (spans aside), formatting the
// output again changes nothing, and comments inserted between any two tokens
// all survive, with the same two properties. For the shipped .charter files
// also: the bundle built from the output holds what the input's does.
#include "charter/format.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ast/ast.h"
#include "charter/charter.h"
#include "charter/disassembly.h"
#include "charter/schedule.h"
#include "common/strings.h"
#include "gtest/gtest.h"
#include "syntax/parser.h"
#include "testing/status_matchers.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::IsOkAndHolds;
using ::charter_testing::StatusIs;

namespace ast = internal::ast;

// Options that compile `.charter` declarations (the scheduling library's).
CompileOptions WithDeclarations() {
  CompileOptions options;
  options.declarations = &schedule::Declarations();
  return options;
}

std::string Entity(const ast::EntityRef& e) { return internal::Cat(e.type, "::", e.id.size(), ":", e.id); }

void DumpExpr(const ast::Expr& e, std::string* out) {
  internal::CatAppend(out, "(", static_cast<int>(e.kind), " b", e.b, " i", e.i, " s", e.str.size(), ":",
                      e.str, " e", Entity(e.entity), " v", static_cast<int>(e.var), " o",
                      static_cast<int>(e.bop), " u", static_cast<int>(e.uop));
  for (const std::string& k : e.keys) internal::CatAppend(out, " k", k.size(), ":", k);
  for (const ast::PatternElem& p : e.pattern) {
    internal::CatAppend(out, p.wildcard ? " *" : " p", p.literal.size(), ":", p.literal);
  }
  for (const auto& a : e.args) DumpExpr(*a, out);
  out->append(")");
}

void DumpScope(const ast::ScopeConstraint& s, std::string* out) {
  internal::CatAppend(out, " scope", static_cast<int>(s.kind), s.slot, Entity(s.entity), s.type);
}

void DumpDeclValue(const ast::DeclValue& v, std::string* out) {
  internal::CatAppend(out, "(", static_cast<int>(v.kind), " ", v.text.size(), ":", v.text, " ", v.id.size(), ":",
                      v.id, " ", v.flag);
  for (const ast::DeclValue& i : v.items) DumpDeclValue(i, out);
  out->append(")");
}

void DumpDecl(const ast::DeclEntry& e, std::string* out) {
  internal::CatAppend(out, "{", e.head.quoted ? "q" : "", e.head.text.size(), ":", e.head.text);
  for (const ast::DeclEntry::Word& w : e.names) internal::CatAppend(out, " n", w.text.size(), ":", w.text);
  internal::CatAppend(out, " b", static_cast<int>(e.body));
  if (e.body == ast::DeclEntry::Body::kSetting) DumpDeclValue(e.value, out);
  for (const ast::DeclEntry::Modifier& m : e.modifiers) {
    internal::CatAppend(out, " m", m.word.text);
    DumpDeclValue(m.value, out);
  }
  for (const ast::DeclEntry& x : e.entries) DumpDecl(x, out);
  out->append("}");
}

// The policy set without spans.
std::string Dump(const ast::PolicySet& set) {
  std::string out;
  for (const ast::Policy& p : set.policies) {
    internal::CatAppend(&out, "policy ", p.id, " ", static_cast<int>(p.effect));
    for (const ast::Annotation& a : p.annotations) internal::CatAppend(&out, " @", a.key, "=", a.value);
    DumpScope(p.principal, &out);
    internal::CatAppend(&out, " action", static_cast<int>(p.action.kind));
    for (const ast::EntityRef& e : p.action.entities) internal::CatAppend(&out, " ", Entity(e));
    DumpScope(p.resource, &out);
    for (const ast::Condition& c : p.conditions) {
      internal::CatAppend(&out, c.when ? " when " : " unless ");
      DumpExpr(*c.body, &out);
    }
    out.append("\n");
  }
  for (const ast::DeclEntry& d : set.declarations) {
    DumpDecl(d, &out);
    out.append("\n");
  }
  return out;
}

// The name a text is read under: a .charter name for a .charter file, so
// that its declarations are read.
std::string SourceName(const std::string& name) {
  return name.find(".charter") != std::string::npos ? "in.charter" : "in.cedar";
}

struct Parsed {
  std::string dump;
  std::string errors;
};

Parsed Parse(const std::string& name, const std::string& text) {
  SourceFile source(SourceName(name), text);
  Diagnostics diagnostics;
  ast::PolicySet set = internal::ParsePolicySet(source, {}, &diagnostics);
  return {Dump(set), diagnostics.RenderShort(source)};
}

std::string Format(const std::string& text, std::string* error = nullptr,
                   const std::string& name = "in.cedar") {
  SourceFile source(name, text);
  absl::StatusOr<std::string> out = FormatPolicies(source, {}, nullptr);
  if (!out.ok()) {
    if (error != nullptr) *error = std::string(out.status().message());
    return "";
  }
  return *out;
}

// Formats `text` and checks the three properties; returns the output.
std::string CheckFormats(const std::string& name, const std::string& text) {
  std::string error;
  std::string once = Format(text, &error, SourceName(name));
  EXPECT_TRUE(error.empty()) << name << ": " << error;
  Parsed before = Parse(name, text);
  Parsed after = Parse(name + " (formatted)", once);
  EXPECT_EQ(after.errors, "") << name << " formatted:\n" << once;
  EXPECT_EQ(before.dump, after.dump) << name << " formatted:\n" << once;
  // CHARTER_FORMAT_DEBUG=FILE keeps an output that is not a fixed point.
  std::string twice = Format(once, nullptr, SourceName(name));
  if (std::getenv("CHARTER_FORMAT_DEBUG") != nullptr && twice != once) {
    std::ofstream(std::getenv("CHARTER_FORMAT_DEBUG")) << once;
  }
  EXPECT_EQ(twice, once) << name << " is not a fixed point; input:\n" << text;
  return once;
}

TEST(Format, Layout) {
  EXPECT_EQ(Format("permit(principal,action,resource);"), "permit (principal, action, resource);\n");
  EXPECT_EQ(Format("@id(\"a\")@advice forbid(principal==User::\"a\",action in [Action::\"x\",Action::\"y\"],"
                   "resource is Task in ?resource)unless{principal.x};"),
            "@id(\"a\")\n"
            "@advice\n"
            "forbid (\n"
            "  principal == User::\"a\",\n"
            "  action in [Action::\"x\", Action::\"y\"],\n"
            "  resource is Task in ?resource\n"
            ")\n"
            "unless { principal.x };\n");
  EXPECT_EQ(Format("permit(principal,action,resource) when { context.aaaaaaaaaaaaaaaaaaaaaaa && "
                   "context.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb && context.ccccccccccccccccccccccccc };"),
            "permit (principal, action, resource)\n"
            "when\n"
            "{\n"
            "  context.aaaaaaaaaaaaaaaaaaaaaaa &&\n"
            "  context.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb &&\n"
            "  context.ccccccccccccccccccccccccc\n"
            "};\n");
}

TEST(Format, CanonicalSpellingsAndParentheses) {
  EXPECT_EQ(Format("permit(principal,action,resource) when { ((principal[\"a\"])) == (-(5)) && "
                   "!(!(!context.b)) && (1 + 2) * 3 == 9 && context[\"x y\"] like \"a\\*b*\" && "
                   "{\"k\": \"\\u{0}\\\"\", \"if\": 1}.k has \"sp ace\" };"),
            "permit (principal, action, resource)\n"
            "when\n"
            "{\n"
            "  principal.a == -(5) &&\n"
            "  !!!context.b &&\n"
            "  (1 + 2) * 3 == 9 &&\n"
            "  context[\"x y\"] like \"a\\*b*\" &&\n"
            "  { k: \"\\0\\\"\", \"if\": 1 }.k has \"sp ace\"\n"
            "};\n");
  CheckFormats("negatives", "permit(principal,action,resource) when { ----5 == - - - -5 && "
                            "!(!!!!true) && (-5).lessThan(1) && -(-(-(-(-context.x))) ) == 1 && 1 - (2 - 3) == 2 };");
}

TEST(Format, KeepsComments) {
  std::string text =
      "// header\n"
      "\n"
      "// about a\n"
      "@id(\"a\") // trailing the annotation\n"
      "permit ( // after the paren\n"
      "  principal, // p\n"
      "  action,\n"
      "  // before resource\n"
      "  resource\n"
      ") when { // after the brace\n"
      "  context.a && // after a\n"
      "  [1, // one\n"
      "   2].contains( // arg\n"
      "   context.b) // before the brace\n"
      "}; // after the policy\n"
      "// at the end\n";
  std::string out = CheckFormats("comments", text);
  EXPECT_EQ(out,
            "// header\n"
            "\n"
            "// about a\n"
            "@id(\"a\") // trailing the annotation\n"
            "permit ( // after the paren\n"
            "  principal, // p\n"
            "  action,\n"
            "  // before resource\n"
            "  resource\n"
            ")\n"
            "when\n"
            "{ // after the brace\n"
            "  context.a && // after a\n"
            "  [\n"
            "    1, // one\n"
            "    2\n"
            "  ].contains( // arg\n"
            "    context.b\n"
            "  ) // before the brace\n"
            "}; // after the policy\n"
            "\n"
            "// at the end\n");
}

TEST(Format, RefusesWhatDoesNotParse) {
  std::string error;
  EXPECT_EQ(Format("permit(principal, action, resource) when { && };", &error), "");
  EXPECT_EQ(error, "in.cedar:1:44: unexpected `&&`");
  Format("{\"effect\": \"permit\"}", &error);
  EXPECT_EQ(error, "in.cedar: Cedar's JSON policy format is not formatted");
  EXPECT_EQ(Format(""), "");
  EXPECT_EQ(Format("// only a comment"), "// only a comment\n");
}

// ---- .charter text: declarations beside policies ----------------------------

std::string FormatCharter(const std::string& text, std::string* error = nullptr) {
  return Format(text, error, "in.charter");
}

TEST(Format, DeclarationLayout) {
  std::string text =
      "flavor   \"a100\" ;flavor cpu_only;flavor \"in\"; flavor \"permit\";\n"
      "priority_class \"inference\" :90;\n"
      "\n"
      "\n"
      "scheduler{fair_sharing:true;fair_sharing_strategies:[LessThanInitialShare,LessThanOrEqualToFinalShare,];}\n"
      "permit(principal,action,resource);\n"
      "cohort \"org\";cohort \"vision\"{parent:\"org\";fair_weight:1.5;}\n"
      "queue \"vision-west\" { cohort: vision; implements: Governance::Allocation::\"gpu-east/vision\";\n"
      "  queueing: StrictFIFO;\n"
      "  preemption { within_queue: LowerPriority; }\n"
      "  resources \"cpu\", \"memory\", \"nvidia.com/gpu\" {\n"
      "    flavor \"a100\" { \"cpu\": 96; memory: 768Gi; \"nvidia.com/gpu\": 8 borrow 4 lend 2; }\n"
      "    flavor cpu_only {}\n"
      "  }\n"
      "  local_queue \"vision/training\";\n"
      "}\n";
  EXPECT_EQ(FormatCharter(text),
            "flavor a100;\n"
            "flavor cpu_only;\n"
            "flavor \"in\";\n"
            "flavor \"permit\";\n"
            "priority_class inference: 90;\n"
            "\n"
            "scheduler {\n"
            "  fair_sharing: true;\n"
            "  fair_sharing_strategies: [LessThanInitialShare, LessThanOrEqualToFinalShare];\n"
            "}\n"
            "\n"
            "permit (principal, action, resource);\n"
            "\n"
            "cohort org;\n"
            "cohort vision {\n"
            "  parent: \"org\";\n"
            "  fair_weight: 1.5;\n"
            "}\n"
            "queue \"vision-west\" {\n"
            "  cohort: vision;\n"
            "  implements: Governance::Allocation::\"gpu-east/vision\";\n"
            "  queueing: StrictFIFO;\n"
            "  preemption {\n"
            "    within_queue: LowerPriority;\n"
            "  }\n"
            "  resources cpu, memory, \"nvidia.com/gpu\" {\n"
            "    flavor a100 { \"cpu\": 96; memory: 768Gi; \"nvidia.com/gpu\": 8 borrow 4 lend 2; }\n"
            "    flavor cpu_only {}\n"
            "  }\n"
            "  local_queue \"vision/training\";\n"
            "}\n");
  // A flavor's quotas are on one line whatever its length, as the
  // declarations printer writes them.
  EXPECT_EQ(FormatCharter("queue q { resources a { flavor f { aaaaaaaaaaaaaaaaaaaa: 1; bbbbbbbbbbbbbbbbbbbbbbbbb: 2; "
                          "cccccccccccccccccccccccccccccc: 3; } } }"),
            "queue q {\n"
            "  resources a {\n"
            "    flavor f { aaaaaaaaaaaaaaaaaaaa: 1; bbbbbbbbbbbbbbbbbbbbbbbbb: 2; cccccccccccccccccccccccccccccc: 3; }\n"
            "  }\n"
            "}\n");
}

TEST(Format, KeepsCommentsInDeclarations) {
  std::string text =
      "// the cluster\n"
      "\n"
      "flavor a100; // the GPUs\n"
      "queue \"team\" { // a queue\n"
      "  // its cohort\n"
      "  cohort: org;\n"
      "\n"
      "  // the quota\n"
      "  resources cpu {\n"
      "    flavor a100 { cpu: 8 // eight\n"
      "      borrow 2; } // borrowing\n"
      "    // no more flavors\n"
      "  }\n"
      "  local_queue // which\n"
      "    \"team/main\";\n"
      "  // the end of the queue\n"
      "}\n"
      "// the end\n";
  std::string out = CheckFormats("comments.charter", text);
  EXPECT_EQ(out,
            "// the cluster\n"
            "\n"
            "flavor a100; // the GPUs\n"
            "queue team { // a queue\n"
            "  // its cohort\n"
            "  cohort: org;\n"
            "\n"
            "  // the quota\n"
            "  resources cpu {\n"
            "    flavor a100 {\n"
            "      // eight\n"
            "      cpu: 8 borrow 2;\n"
            "    } // borrowing\n"
            "    // no more flavors\n"
            "  }\n"
            "  // which\n"
            "  local_queue \"team/main\";\n"
            "  // the end of the queue\n"
            "}\n"
            "// the end\n");
}

TEST(Format, RefusesWhatItCannotKeep) {
  // A quantity split by a comment parses (the declarations' reader refuses
  // it later), but cannot be written back as it was: refused, not dropped.
  SourceFile source("in.charter", "flavor f;\nqueue q { resources cpu { flavor f { cpu: 64 // x\n Gi; } } }\n");
  Diagnostics diagnostics;
  absl::StatusOr<std::string> out = FormatPolicies(source, {}, &diagnostics);
  ASSERT_THAT(out, StatusIs(absl::StatusCode::kInvalidArgument,
                            "in.charter:2:43: a quantity split across lines or by a comment cannot be formatted; "
                            "the file is left as it is"));
  ASSERT_EQ(diagnostics.size(), 1u);
  const Diagnostic& d = diagnostics.items()[0];
  EXPECT_EQ(d.code, "CH0900");
  EXPECT_EQ(d.message,
            "a quantity split across lines or by a comment cannot be formatted; the file is left as it is");
  EXPECT_EQ(d.help, "write the quantity on one line, without a comment in it");
  EXPECT_EQ(source.text().substr(d.span.begin, d.span.end - d.span.begin), "64 // x\n Gi");
  // A declaration in a .cedar file is not Cedar: refused as the compiler does.
  std::string error;
  EXPECT_EQ(Format("flavor f;", &error), "");
  EXPECT_EQ(error, "in.cedar:1:1: a scheduling declaration (`flavor`) in Cedar text");
}

// What a bundle holds apart from source positions: its code as `charter
// disasm` lists it (without the pc-to-span table) and its scheduling
// configuration as the declarations printer writes it (every table).
std::string BundleContents(const std::string& name, const std::string& text) {
  SourceFile source(name, text);
  absl::StatusOr<Bundle> bundle = Compile(source, WithDeclarations(), nullptr);
  if (!bundle.ok()) return internal::Cat("compile: ", bundle.status().message());
  absl::StatusOr<Disassembly> code = Disassemble(*bundle);
  if (!code.ok()) return internal::Cat("disassemble: ", code.status().message());
  absl::StatusOr<Engine> engine = Engine::Create(*bundle);
  if (!engine.ok()) return internal::Cat("engine: ", engine.status().message());
  std::string out = code->ToText();
  absl::StatusOr<std::optional<schedule::State>> config = schedule::ReadConfiguration(*engine);
  if (!config.ok()) return internal::Cat("scheduling section: ", config.status().message());
  out += !config->has_value() ? "no scheduling declarations\n" : schedule::PrintDeclarations(**config);
  return out;
}

TEST(Format, ShippedCharterFilesBuildTheSameBundle) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(CHARTER_SOURCE_DIR) + "/examples")) {
    if (e.path().extension() == ".charter") files.push_back(e.path());
  }
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    std::string error;
    std::string out = Format(text, &error, path.filename().string());
    ASSERT_EQ(error, "") << path;
    std::string before = BundleContents(path.filename().string(), text);
    EXPECT_NE(before.find("queue "), std::string::npos) << path << ":\n" << before;
    EXPECT_EQ(BundleContents(path.filename().string(), out), before) << path << " formatted:\n" << out;
  }
}

// The declarations printer (what `charter import` writes) is already in
// the formatter's layout: formatting its output changes nothing.
TEST(Format, DeclarationsPrinterOutputIsAFixedPoint) {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/examples/governance/scheduling.charter", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  absl::StatusOr<Bundle> bundle = Compile(SourceFile("scheduling.charter", ss.str()), WithDeclarations(), nullptr);
  ASSERT_THAT(bundle, IsOk());
  absl::StatusOr<Engine> engine = Engine::Create(*bundle);
  ASSERT_THAT(engine, IsOk());
  absl::StatusOr<std::optional<schedule::State>> config = schedule::ReadConfiguration(*engine);
  ASSERT_THAT(config, IsOkAndHolds(testing::Optional(testing::_)));
  std::string printed = schedule::PrintDeclarations(**config);
  std::string error;
  EXPECT_EQ(FormatCharter(printed, &error), printed) << error;
  // Names that are identifiers and names that are keywords, in every place
  // the printer writes a name (local queues out of their queues' order
  // are written after them): the same rule in both (common/names.h).
  absl::StatusOr<Bundle> names = Compile(SourceFile("names.charter", R"(flavor plain;
flavor "if";
queue b { resources cpu { flavor plain { cpu: 1; } } }
queue "is" { resources cpu { flavor "if" { cpu: 1; } } }
local_queue "ns/one": "is";
local_queue three: b;
local_queue "when": "is";
)"),
                                         WithDeclarations(), nullptr);
  ASSERT_THAT(names, IsOk());
  absl::StatusOr<Engine> named = Engine::Create(*names);
  ASSERT_THAT(named, IsOk());
  config = schedule::ReadConfiguration(*named);
  ASSERT_THAT(config, IsOkAndHolds(testing::Optional(testing::_)));
  printed = schedule::PrintDeclarations(**config);
  EXPECT_NE(printed.find("local_queue three: b;"), std::string::npos) << printed;
  EXPECT_NE(printed.find("local_queue \"when\": \"is\";"), std::string::npos) << printed;
  EXPECT_EQ(FormatCharter(printed, &error), printed) << error;
}

// With a comment above every declaration (what `charter import` names each
// object's source with), in every place the printer writes one: a scheduler
// block, flavors and priority classes in a run, cohorts, queues, local
// queues inside their queue and after the queues. The text is still the
// formatter's fixed point, and compiles to the same tables.
TEST(Format, DeclarationsPrinterCommentsAreAFixedPoint) {
  absl::StatusOr<Bundle> bundle = Compile(SourceFile("c.charter", R"(scheduler { fair_sharing: true; }
flavor a;
flavor "b-1";
priority_class high: 10;
priority_class low: 1;
cohort root;
cohort org { parent: root; resources cpu { flavor a { cpu: 4; } } }
queue q1 { cohort: org; resources cpu { flavor a { cpu: 1; } flavor "b-1" { cpu: 2; } } }
queue q2 { resources cpu { flavor a { cpu: 1; } } }
queue q3 {}
local_queue "ns/one": q2;
local_queue two: q1;
)"),
                                          WithDeclarations(), nullptr);
  ASSERT_THAT(bundle, IsOk());
  absl::StatusOr<Engine> engine = Engine::Create(*bundle);
  ASSERT_THAT(engine, IsOk());
  absl::StatusOr<std::optional<schedule::State>> config = schedule::ReadConfiguration(*engine);
  ASSERT_THAT(config, IsOkAndHolds(testing::Optional(testing::_)));
  const schedule::State& state = **config;
  schedule::DeclarationComments comments;
  comments.header = "written by a test\nsecond line\n\nafter an empty line";
  comments.scheduler = "from c.yaml:1 (Configuration)";
  comments.flavors = {"from c.yaml:2 (ResourceFlavor a)", ""};  // the second without one
  comments.priority_classes = {"p1", "p2 with a\rcontrol character"};
  comments.cohorts = {"named by ClusterQueue q1 at c.yaml:9; no Cohort declares it", "c2"};
  comments.cluster_queues = {"q1", "q2"};
  comments.local_queues = {"l1", "l2"};
  std::string printed = schedule::PrintDeclarations(state, comments);
  std::string error;
  EXPECT_EQ(FormatCharter(printed, &error), printed) << error;
  EXPECT_THAT(printed, testing::StartsWith("// written by a test\n// second line\n//\n// after an empty line\n\n"
                                           "// from c.yaml:1 (Configuration)\nscheduler {\n"));
  EXPECT_NE(printed.find("// from c.yaml:2 (ResourceFlavor a)\nflavor a;\nflavor \"b-1\";\n"), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("// p2 with a control character\n"), std::string::npos) << printed;
  EXPECT_EQ(BundleContents("printed.charter", printed),
            BundleContents("plain.charter", schedule::PrintDeclarations(state)));
  // Local queues after their queues (not in the queues' order).
  EXPECT_NE(printed.find("// l1\nlocal_queue \"ns/one\": q2;\n// l2\nlocal_queue two: q1;\n"), std::string::npos)
      << printed;
  // In their queues: swap them into the queues' order.
  schedule::State in_order = state;
  std::swap(in_order.local_queues[0], in_order.local_queues[1]);
  printed = schedule::PrintDeclarations(in_order, comments);
  EXPECT_EQ(FormatCharter(printed, &error), printed) << error;
  EXPECT_NE(printed.find("  // l1\n  local_queue two;\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("\nqueue q3 {}\n"), std::string::npos) << printed;
  // A configuration's comment writes its block even with the defaults.
  EXPECT_NE(schedule::PrintDeclarations(schedule::State{}, comments)
                .find("// from c.yaml:1 (Configuration)\nscheduler {\n  fair_sharing: false;\n}\n"),
            std::string::npos);
  // Only a header: no empty line after it.
  comments.scheduler.clear();
  EXPECT_EQ(schedule::PrintDeclarations(schedule::State{}, comments), "// written by a test\n// second line\n//\n"
                                                                       "// after an empty line\n");
}

// The generated corpus, and every .cedar and .charter file of the
// repository (examples, stdlib, tests, fuzz corpora).
std::vector<std::filesystem::path> CorpusFiles() {
  std::vector<std::filesystem::path> files;
  const char* dir = std::getenv("CHARTER_FORMAT_CORPUS");
  if (dir != nullptr) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  }
  for (const char* top : {"examples", "stdlib", "tests", "fuzz/corpus", "bench", "bindings"}) {
    std::filesystem::path root = std::filesystem::path(CHARTER_SOURCE_DIR) / top;
    if (!std::filesystem::is_directory(root)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".cedar" || ext == ".charter")) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Offsets of the spaces and line breaks outside strings and comments.
std::vector<size_t> Gaps(const std::string& text) {
  std::vector<size_t> gaps;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ' ' || c == '\n') {
      gaps.push_back(i);
    }
  }
  return gaps;
}

TEST(Format, Corpus) {
  std::vector<std::filesystem::path> files = CorpusFiles();
  if (std::getenv("CHARTER_FORMAT_CORPUS") != nullptr) {
    EXPECT_GT(files.size(), 150u);
  }
  size_t formatted = 0;
  uint64_t rng = 0x9e3779b97f4a7c15u;
  for (const auto& path : files) {
    std::string text = ReadAll(path);
    if (!Parse(path.string(), text).errors.empty()) {
      std::string error;
      EXPECT_EQ(Format(text, &error, SourceName(path.string())), "") << path;
      EXPECT_FALSE(error.empty()) << path;
      continue;
    }
    CheckFormats(path.string(), text);
    ++formatted;
    // The same text with a comment in some of its gaps (a line comment
    // needs a line break after it).
    std::vector<size_t> gaps = Gaps(text);
    std::string commented;
    size_t last = 0;
    int n = 0;
    for (size_t g : gaps) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      if (rng % 5 != 0) continue;
      commented.append(text, last, g - last);
      internal::CatAppend(&commented, rng % 3 == 0 ? "\n" : " ", "// c", n++, "\n");
      last = g;
    }
    commented.append(text, last, std::string::npos);
    std::string out = CheckFormats(path.string() + " with comments", commented);
    for (int i = 0; i < n; ++i) {
      std::string mark = internal::Cat("// c", i, "\n");
      EXPECT_NE(out.find(mark), std::string::npos) << path << ": lost " << mark << " from\n" << commented;
    }
    if (testing::Test::HasFailure()) break;
  }
  EXPECT_GT(formatted, 0u);
}

}  // namespace
}  // namespace charter
