// The language server's pieces (cli/lsp_*.h): positions in UTF-16 code
// units, incremental edits, the Content-Length framing, the outline, and
// the server's answers to messages that are not what they should be.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lsp_outline.h"
#include "lsp_server.h"
#include "lsp_text.h"
#include "lsp_transport.h"

namespace charter::cli::lsp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(LineIndex, CountsUtf16CodeUnits) {
  // "é" is 2 bytes and 1 unit; "😀" is 4 bytes and 2 units.
  std::string text = "aé😀b\nx\r\ny\rz";
  LineIndex index(text);
  EXPECT_EQ(index.line_count(), 4u);
  EXPECT_EQ(index.OffsetOf({0, 0}), 0u);
  EXPECT_EQ(index.OffsetOf({0, 2}), 3u);  // after é
  EXPECT_EQ(index.OffsetOf({0, 3}), 3u);  // inside the surrogate pair: its start
  EXPECT_EQ(index.OffsetOf({0, 4}), 7u);  // after 😀
  EXPECT_EQ(index.OffsetOf({0, 5}), 8u);
  EXPECT_EQ(index.OffsetOf({0, 99}), 8u);  // past the line: its end, not the newline
  EXPECT_EQ(index.OffsetOf({1, 1}), 10u);  // before "\r\n"
  EXPECT_EQ(index.OffsetOf({2, 0}), 12u);  // "\r\n" is one line break
  EXPECT_EQ(index.OffsetOf({3, 0}), 14u);  // so is "\r"
  EXPECT_EQ(index.OffsetOf({9, 9}), text.size());
  EXPECT_EQ(index.PositionOf(7).character, 4u);
  EXPECT_EQ(index.PositionOf(5).character, 2u);  // inside 😀: its start
  EXPECT_EQ(index.PositionOf(12).line, 2u);
  EXPECT_EQ(index.PositionOf(999).line, 3u);
}

TEST(LineIndex, InvalidUtf8CountsOneUnitAByte) {
  std::string text = "\xff\xc3x\xf0\x9f";
  LineIndex index(text);
  EXPECT_EQ(index.OffsetOf({0, 2}), 2u);
  EXPECT_EQ(index.PositionOf(text.size()).character, 5u);
}

TEST(ApplyEdit, ReplacesByRange) {
  std::string text = "permit(principal, action, resource);\nforbid😀(x);";
  ApplyEdit(&text, {0, 7}, {0, 16}, "p");
  EXPECT_EQ(text, "permit(p, action, resource);\nforbid😀(x);");
  ApplyEdit(&text, {1, 8}, {1, 9}, "");  // after the emoji (2 units)
  EXPECT_EQ(text, "permit(p, action, resource);\nforbid😀x);");
  ApplyEdit(&text, {1, 3}, {0, 1}, "!");  // end before start: an insertion at the start
  EXPECT_EQ(text, "permit(p, action, resource);\nfor!bid😀x);");
  ApplyEdit(&text, {7, 0}, {9, 9}, "\n;");  // past the end: appended
  EXPECT_EQ(text, "permit(p, action, resource);\nfor!bid😀x);\n;");
}

std::vector<MessageReader::Event> ReadAll(MessageReader& reader) {
  std::vector<MessageReader::Event> out;
  while (std::optional<MessageReader::Event> e = reader.Next()) out.push_back(*std::move(e));
  return out;
}

TEST(MessageReader, SplitsFramesFedInPieces) {
  std::string stream = Frame("{\"a\":1}") + "content-length:  3\r\nContent-Type: x\r\n\r\n[1]";
  MessageReader reader;
  std::vector<std::string> bodies;
  for (char c : stream) {
    reader.Feed(std::string(1, c));
    for (const MessageReader::Event& e : ReadAll(reader)) {
      ASSERT_EQ(e.kind, MessageReader::Kind::kMessage);
      bodies.push_back(e.body);
    }
  }
  EXPECT_THAT(bodies, ElementsAre("{\"a\":1}", "[1]"));
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(MessageReader, RefusesBadHeadersAndGoesOn) {
  MessageReader reader(TransportLimits{64, 10});
  reader.Feed("Content-Length: x1\r\n\r\n");
  reader.Feed("Content-Length: 1\r\nContent-Length: 1\r\n\r\n");
  reader.Feed("no colon\r\n\r\n");
  reader.Feed("Content-Length: 11\r\n\r\n01234");  // over the limit of 10: skipped as it comes
  reader.Feed("56789X" + Frame("{}"));
  std::vector<MessageReader::Event> events = ReadAll(reader);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].body, "Content-Length is not a number");
  EXPECT_EQ(events[1].body, "Content-Length is given twice");
  EXPECT_EQ(events[2].body, "a header line is not `Name: value`");
  EXPECT_EQ(events[3].kind, MessageReader::Kind::kTooLarge);
  EXPECT_EQ(events[4].kind, MessageReader::Kind::kMessage);
  EXPECT_EQ(events[4].body, "{}");
  // A header that never ends is dropped, the limit and its end's 4 bytes
  // at a time (less the 3 that may start the end of a header).
  reader.Feed(std::string(100, 'h'));
  events = ReadAll(reader);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, MessageReader::Kind::kBadHeader);
  EXPECT_EQ(reader.buffered(), 100u - 65u);
  reader.Feed("\r\n\r\n");  // ends what is left of it: not a header line
  events = ReadAll(reader);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].body, "a header line is not `Name: value`");
}

TEST(Outline, PoliciesAndDeclarations) {
  std::string text =
      "// who reads\n@id(\"r\") @other\npermit(principal, action, resource) when { { a: 1 } has a }\n"
      "forbid(principal, action, resource);\nqueue \"q\" { cohort: \"c\"; }\nflavor a100;\n";
  std::vector<Symbol> s = OutlinePolicies(text);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].name, "r");  // the missing `;` ends it at the next policy
  EXPECT_EQ(text.substr(s[0].doc_begin, s[0].doc_end - s[0].doc_begin), "// who reads");
  EXPECT_EQ(s[1].name, "policy1");
  EXPECT_EQ(s[1].detail, "forbid");
  EXPECT_EQ(s[2].name, "q");
  EXPECT_EQ(s[2].detail, "queue");
  EXPECT_EQ(text.substr(s[2].begin, s[2].end - s[2].begin), "queue \"q\" { cohort: \"c\"; }");
  EXPECT_EQ(s[3].name, "a100");
}

TEST(Outline, Schema) {
  std::string text =
      "entity A, B in [C] = { x: Long, \"y z\"?: Set<A> };\nnamespace N::M {\n  type T = { t: Bool };\n"
      "  entity E enum [\"a\"];\n  action \"do\", go appliesTo { principal: A };\n}\n";
  std::vector<Symbol> s = OutlineSchema(text);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].name, "A");
  EXPECT_EQ(s[1].name, "B");
  ASSERT_EQ(s[1].children.size(), 2u);
  EXPECT_EQ(s[1].children[1].name, "y z");
  EXPECT_EQ(s[1].children[1].detail, "Set<A>");
  EXPECT_EQ(s[2].name, "N::M");
  ASSERT_EQ(s[2].children.size(), 4u);
  EXPECT_EQ(s[2].children[0].name, "T");
  EXPECT_EQ(s[2].children[1].name, "E");
  EXPECT_TRUE(s[2].children[1].children.empty());
  EXPECT_EQ(s[2].children[2].name, "do");
  EXPECT_EQ(s[2].children[3].name, "go");
  EXPECT_TRUE(OutlineSchema("{\"\": {}}").empty());
}

TEST(ReferenceAt, TypesEntitiesAttributes) {
  std::string text = "principal is Org::User && resource.owner == Org::Action::\"v\\\"w\" && p has x";
  Reference r = ReferenceAt(text, text.find("User") + 1);
  EXPECT_EQ(r.kind, Reference::Kind::kType);
  EXPECT_EQ(r.type, "Org::User");
  r = ReferenceAt(text, text.find("owner"));
  EXPECT_EQ(r.kind, Reference::Kind::kAttribute);
  EXPECT_EQ(r.id, "owner");
  EXPECT_EQ(r.base, "resource");
  r = ReferenceAt(text, text.find("v\\"));
  EXPECT_EQ(r.kind, Reference::Kind::kEntity);
  EXPECT_EQ(r.type, "Org::Action");
  EXPECT_EQ(r.id, "v\"w");
  r = ReferenceAt(text, text.size());
  EXPECT_EQ(r.kind, Reference::Kind::kAttribute);
  EXPECT_EQ(r.id, "x");
  EXPECT_EQ(ReferenceAt(text, text.find("&&")).kind, Reference::Kind::kNone);
}

// Occurrences as [kind, name(::"id"), text, declaration], for comparing whole lists.
std::vector<std::string> Described(std::string_view text, const std::vector<Occurrence>& occurrences) {
  std::vector<std::string> out;
  for (const Occurrence& o : occurrences) {
    const char* kinds[] = {"type", "action", "attribute", "template", "queue", "cohort", "flavor"};
    std::string name = o.kind == Occurrence::Kind::kAction ? o.name + "::" + o.id : o.name;
    out.push_back(std::string(kinds[static_cast<int>(o.kind)]) + " " + name + " `" +
                  std::string(text.substr(o.begin, o.end - o.begin)) + "`" + (o.declaration ? " declared" : ""));
  }
  return out;
}

TEST(Occurrences, InPolicies) {
  std::string_view text =
      "@id(\"t\") permit (principal == ?principal, action, resource is Org::Doc)\n"
      "when { resource.owner.level > 1 && resource.title.contains(\"x\") && principal in Org::Team::\"a\" };\n"
      "forbid (principal, action in [Org::Action::\"view\"], resource) when { context has ip && ip(\"1.2.3.4\").isLoopback() };";
  EXPECT_THAT(Described(text, PolicyOccurrences(text, false)),
              ElementsAre("template t `\"t\"` declared", "type Org::Doc `Doc`", "attribute owner `owner`",
                          "attribute level `level`", "attribute title `title`", "type Org::Team `Team`",
                          "action Org::Action::view `\"view\"`", "attribute ip `ip`"));
}

TEST(Occurrences, InCharterDeclarations) {
  std::string_view text =
      "flavor a;\ncohort \"org\";\ncohort c { parent: \"org\"; }\n"
      "queue \"q\" { cohort: c; implements: Org::Team::\"x\"; resources cpu { flavor a { cpu: 1; } } }\n"
      "local_queue \"ns/l\": q;\n";
  EXPECT_THAT(Described(text, PolicyOccurrences(text, true)),
              ElementsAre("flavor a `a` declared", "cohort org `\"org\"` declared", "cohort c `c` declared",
                          "cohort org `\"org\"`", "queue q `\"q\"` declared", "cohort c `c`", "type Org::Team `Team`",
                          "flavor a `a`", "queue q `q`"));
}

TEST(Occurrences, InSchemas) {
  std::string_view text =
      "entity Top;\nnamespace Org {\n  entity User, Bot in [Top] { \"level\": Long, boss?: User };\n"
      "  type Ctx = { ip: String };\n  action \"read\";\n  action write in [\"read\", Action::\"read\"]\n"
      "    appliesTo { principal: [User, Org::Bot], resource: Top, context: Ctx };\n}\n";
  EXPECT_THAT(Described(text, SchemaOccurrences(text)),
              ElementsAre("type Top `Top` declared", "type Org::User `User` declared", "type Org::Bot `Bot` declared",
                          "type Top `Top`", "attribute level `\"level\"` declared", "attribute boss `boss` declared",
                          "type Org::User `User`", "type Org::Ctx `Ctx` declared", "action Org::Action::read `\"read\"` declared",
                          "action Org::Action::write `write` declared", "action Org::Action::read `\"read\"`",
                          "action Org::Action::read `\"read\"`", "type Org::User `User`", "type Org::Bot `Bot`",
                          "type Top `Top`", "type Org::Ctx `Ctx`"));
  std::vector<Occurrence> all = SchemaOccurrences(text);
  EXPECT_THAT(all[4].owners, ElementsAre("Org::User", "Org::Bot"));
  EXPECT_TRUE(all[4].quoted);
  EXPECT_TRUE(SchemaOccurrences("{\"Org\": {}}").empty());  // Cedar's JSON schema format
}

TEST(Occurrences, InTemplateLinks) {
  std::string_view text = R"([{"template_id": "t", "link_id": "template_id"}, {"link_id": "x", "template_id": "u"}])";
  EXPECT_THAT(Described(text, LinkOccurrences(text)), ElementsAre("template t `\"t\"`", "template u `\"u\"`"));
}

TEST(TestCases, AreTheObjectsOfCases) {
  std::string_view text = R"({"policies": "p.cedar", "entities": [{"cases": [{}]}],
  "cases": [
    {"request": {"name": "not this"}, "name": "first", "decision": "allow"},
    {"decision": "deny"}
  ]})";
  std::vector<TestCase> cases = TestCases(text);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, "first");
  EXPECT_EQ(text.substr(cases[1].begin, cases[1].end - cases[1].begin), R"({"decision": "deny"})");
  EXPECT_EQ(cases[1].name, "");
  EXPECT_TRUE(TestCases("{\"cases\": [").empty());
  EXPECT_TRUE(TestCases("").empty());
}

TEST(TestInvariants, AreTheObjectsOfInvariants) {
  std::string_view text = R"({"policies": "p.cedar", "cases": [{"name": "a case"}],
  "invariants": [{"name": "holds", "property": "always-denies"}, {"property": "never-errors"}]})";
  std::vector<TestCase> invariants = TestInvariants(text);
  ASSERT_EQ(invariants.size(), 2u);
  EXPECT_EQ(invariants[0].name, "holds");
  EXPECT_EQ(text.substr(invariants[1].begin, invariants[1].end - invariants[1].begin), R"({"property": "never-errors"})");
  EXPECT_EQ(invariants[1].name, "");
  ASSERT_EQ(TestCases(text).size(), 1u);
  EXPECT_EQ(TestCases(text)[0].name, "a case");
}

// `charter.runTest` of an invariant runs `charter test --invariant` with
// its name in the file as saved, or its number when it has none.
TEST(Server, ProvesOneInvariantByItsNameOrNumber) {
  std::string dir = ::testing::TempDir();
  std::string path = dir + (dir.empty() || dir.back() != '/' ? "/" : "") + "lsp_units.test.json";
  {
    std::ofstream file(path);
    file << R"({"policies": "p.cedar", "schemas": "s.cedarschema",
 "invariants": [{"name": "holds", "property": "always-denies"}, {"property": "never-errors"}]})";
  }
  Server server;
  std::vector<std::vector<std::string>> runs;
  server.set_run_charter([&](const std::vector<std::string>& args, std::string* out, std::string*) {
    runs.push_back(args);
    *out = R"({"files":[{"file":"f","cases":[{"name":"holds","passed":true,"invariant":{"property":"always-denies",)"
           R"("result":"holds","answers":[{"signature":null,"result":"holds","reason":""}]}}]}],"passed":1,"failed":0})";
    return 0;
  });
  std::vector<std::string> out;
  server.Handle(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})", &out);
  for (int i = 0; i < 2; ++i) {
    out.clear();
    server.Handle(R"({"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"charter.runTest",)"
                  R"("arguments":["file://)" + path + "\"," + std::to_string(i) + R"(,"invariant"]}})",
                  &out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_THAT(out[1], HasSubstr(R"x("result":{"message":"PASS invariant holds: holds (1 signature)","passed":true})x"));
  }
  EXPECT_THAT(runs, ElementsAre(ElementsAre("test", "--format", "json", "--invariant", "holds", path),
                                ElementsAre("test", "--format", "json", "--invariant", "2", path)));
  std::remove(path.c_str());
}

TEST(SemanticTokens, NeverOverlapAndStayOnALine) {
  std::string_view text = "permit (principal, action, resource) // a\nwhen { resource.n >= 64 && \"a\nb\" };";
  std::vector<SemanticToken> tokens = SemanticTokens(text, SemanticLanguage::kCedar);
  size_t covered = 0;
  for (const SemanticToken& t : tokens) {
    EXPECT_GE(t.begin, covered);
    EXPECT_LT(t.begin, t.end);
    EXPECT_EQ(text.substr(t.begin, t.end - t.begin).find('\n'), std::string_view::npos);
    covered = t.end;
  }
  ASSERT_GE(tokens.size(), 9u);
  EXPECT_EQ(text.substr(tokens[4].begin, tokens[4].end - tokens[4].begin), "// a");
  EXPECT_EQ(tokens[4].type, SemanticType::kComment);
}

TEST(Server, RefusesToRunTestsWithoutARunner) {
  Server server(ServerOptions{.read_files = false});
  std::vector<std::string> out;
  server.Handle(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})", &out);
  out.clear();
  server.Handle(R"({"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"charter.runTest",)"
                R"("arguments":["file:///a.test.json",0]}})",
                &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0], HasSubstr("this server does not run tests"));
}

TEST(Server, AnswersWhatIsNotARequest) {
  Server server(ServerOptions{.read_files = false});
  std::vector<std::string> out;
  server.Handle("", &out);
  server.Handle("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"x\"}", &out);
  server.Handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":3,\"method\":\"initialize\"}", &out);
  server.Handle("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\"}", &out);
  server.Handle("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\"}", &out);
  server.Handle("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":null}", &out);  // a response: ignored
  server.Handle("{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}", &out);         // a notification: ignored
  server.Handle("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"shutdown\"}", &out);
  server.Handle("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"textDocument/hover\"}", &out);
  EXPECT_FALSE(server.exited());
  server.Handle("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}", &out);
  ASSERT_EQ(out.size(), 7u);
  EXPECT_THAT(out[0], HasSubstr("\"code\":-32700"));
  EXPECT_THAT(out[1], HasSubstr("\"code\":-32600"));
  EXPECT_THAT(out[2], HasSubstr("\"code\":-32602"));
  EXPECT_THAT(out[3], HasSubstr("\"capabilities\""));
  EXPECT_THAT(out[4], HasSubstr("\"code\":-32600"));
  EXPECT_EQ(out[5], "{\"id\":4,\"jsonrpc\":\"2.0\",\"result\":null}");
  EXPECT_THAT(out[6], HasSubstr("shutting down"));
  EXPECT_TRUE(server.exited());
  EXPECT_EQ(server.exit_code(), 0);
}

TEST(Server, ForgetsADocumentThatGrowsPastTheLimit) {
  Server server(ServerOptions{.read_files = false, .max_document_bytes = 40});
  std::vector<std::string> out;
  server.Handle(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})", &out);
  server.Handle(R"({"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":)"
                R"({"uri":"file:///a.cedar","version":1,"text":"permit(principal, action, resource);"}}})",
                &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[1], HasSubstr("\"diagnostics\":[]"));
  out.clear();
  server.Handle(R"({"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":)"
                R"({"uri":"file:///a.cedar","version":2},"contentChanges":[{"range":{"start":{"line":0,)"
                R"("character":0},"end":{"line":0,"character":0}},"text":"// a comment\n"}]}})",
                &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0], HasSubstr("/a.cedar is larger than 40 bytes; the server no longer follows it"));
  EXPECT_THAT(out[1], HasSubstr("\"diagnostics\":[]"));
  out.clear();
  server.Handle(R"({"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":)"
                R"({"uri":"file:///a.cedar"}}})",
                &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0], HasSubstr("is not open"));
}

}  // namespace
}  // namespace charter::cli::lsp
