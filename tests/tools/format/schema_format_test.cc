// The schema formatter (charter::FormatSchema): exact layout on a commented
// schema, and for every .cedarschema file of the repository and of the fuzz
// corpus: the output reads as the same schema (the checked model's JSON form
// and the schema AST, spans aside), formatting it again changes nothing, and
// a comment inserted after every `{`, `,` and `;` survives. Refusals: Cedar's
// JSON schema format, and text that does not parse.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "charter/format.h"
#include "charter/schema.h"
#include "common/strings.h"
#include "gtest/gtest.h"

namespace charter {
namespace {

std::string FormatText(const std::string& text, std::string* error, Diagnostics* diagnostics = nullptr) {
  SourceFile source("s.cedarschema", text);
  absl::StatusOr<std::string> out = FormatSchema(source, {}, diagnostics);
  if (!out.ok()) {
    *error = std::string(out.status().message());
    return "";
  }
  error->clear();
  return *out;
}

// The schema's meaning, in Cedar's JSON schema format.
std::string Json(const std::string& text) {
  absl::StatusOr<Schema> schema = Schema::Parse(SourceFile("s.cedarschema", text), {}, nullptr);
  return schema.ok() ? schema->ToJson() : internal::Cat("error: ", schema.status().message());
}

TEST(FormatSchema, Layout) {
  std::string text =
      "// The model.\n"
      "namespace Org{ // people and documents\n"
      "type Address={street:String,city?:String};\n"
      "\n"
      "\n"
      "// A person.\n"
      "@doc(\"a person\") entity User in Team {\n"
      "  email:String, // work address\n"
      "  \"home address\"?: Address,\n"
      "  // who they report to\n"
      "  manager?:User\n"
      "} tags String;\n"
      "entity Team,Group; entity Doc = {owner: User, readers: Set<User>, level: __cedar::Long};\n"
      "entity Kind enum [\"a\", \"b\"];\n"
      "action \"read docs\", edit in [read] appliesTo{context:{mfa:Bool},principal:[User],resource:Doc};\n"
      "action read;\n"
      "action admin in [Org::Action::\"read\"] appliesTo { principal: [User, Team, Group], resource: [Doc], "
      "context: { mfa: Bool, ip: ipaddr, at: datetime } };\n"
      "}\n"
      "entity Top; // outside any namespace\n";
  std::string error;
  std::string out = FormatText(text, &error);
  ASSERT_EQ(error, "");
  EXPECT_EQ(out,
            "// The model.\n"
            "namespace Org { // people and documents\n"
            "  type Address = { street: String, city?: String };\n"
            "\n"
            "  // A person.\n"
            "  @doc(\"a person\")\n"
            "  entity User in [Team] {\n"
            "    email: String, // work address\n"
            "    \"home address\"?: Address,\n"
            "    // who they report to\n"
            "    manager?: User,\n"
            "  } tags String;\n"
            "  entity Team, Group;\n"
            "  entity Doc { owner: User, readers: Set<User>, level: __cedar::Long };\n"
            "  entity Kind enum [\"a\", \"b\"];\n"
            "  action \"read docs\", edit in [read]\n"
            "    appliesTo { context: { mfa: Bool }, principal: [User], resource: [Doc] };\n"
            "  action read;\n"
            "  action admin in [Org::Action::\"read\"]\n"
            "    appliesTo {\n"
            "      principal: [User, Team, Group],\n"
            "      resource: [Doc],\n"
            "      context: { mfa: Bool, ip: ipaddr, at: datetime },\n"
            "    };\n"
            "}\n"
            "entity Top; // outside any namespace\n");
  EXPECT_EQ(FormatText(out, &error), out);
  EXPECT_EQ(Json(out), Json(text));
}

// Cedar's grammar takes a comma after the last entry of a record or of
// `appliesTo`, but not after the last item of a list (`in [...]`, `enum
// [...]`, `principal: [...]`): Cedar refused the stdlib's schema when a
// broken enum ended `"notebook",`.
TEST(FormatSchema, BrokenListsHaveNoTrailingComma) {
  std::string error;
  std::string out = FormatText(
      "entity WorkloadType enum [\"training\", \"fine-tuning\", \"evaluation\", \"inference\", \"notebook\"];\n"
      "action a appliesTo { principal: [Aaaaaaaaaaaa, Bbbbbbbbbbbbbb, Cccccccccccccc, Dddddddddddd, Eeeeeeeeeeee], "
      "resource: [R] };\n",
      &error);
  ASSERT_EQ(error, "");
  EXPECT_EQ(out,
            "entity WorkloadType enum [\n"
            "  \"training\",\n"
            "  \"fine-tuning\",\n"
            "  \"evaluation\",\n"
            "  \"inference\",\n"
            "  \"notebook\"\n"
            "];\n"
            "action a\n"
            "  appliesTo {\n"
            "    principal: [\n"
            "      Aaaaaaaaaaaa,\n"
            "      Bbbbbbbbbbbbbb,\n"
            "      Cccccccccccccc,\n"
            "      Dddddddddddd,\n"
            "      Eeeeeeeeeeee\n"
            "    ],\n"
            "    resource: [R],\n"
            "  };\n");
}

TEST(FormatSchema, RefusesJsonAndWhatDoesNotParse) {
  std::string error;
  EXPECT_EQ(FormatText("{\"\": {\"entityTypes\": {}, \"actions\": {}}}", &error), "");
  EXPECT_NE(error.find("Cedar's JSON schema format is not formatted"), std::string::npos) << error;
  Diagnostics diagnostics;
  EXPECT_EQ(FormatText("entity User {\n  name: String\n", &error, &diagnostics), "");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics.items()[0].code, std::string("CH0401"));
  EXPECT_EQ(error.rfind("s.cedarschema:", 0), 0u) << error;
}

std::vector<std::filesystem::path> SchemaFiles() {
  std::vector<std::filesystem::path> files;
  const std::string root = CHARTER_SOURCE_DIR;
  for (const char* dir : {"stdlib", "examples", "tests", "docs", "fuzz/corpus/schema"}) {
    if (!std::filesystem::exists(root + "/" + dir)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root + "/" + dir)) {
      if (e.path().extension() == ".cedarschema") files.push_back(e.path());
    }
  }
  return files;
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The properties for one text: it formats, its output is a fixed point and
// reads as the same schema. Returns the output.
std::string CheckFormats(const std::string& name, const std::string& text) {
  std::string error;
  std::string out = FormatText(text, &error);
  EXPECT_EQ(error, "") << name;
  if (!error.empty()) return "";
  EXPECT_EQ(FormatText(out, &error), out) << name << " formatted:\n" << out;
  EXPECT_EQ(Json(out), Json(text)) << name;
  return out;
}

TEST(FormatSchema, EverySchemaFileOfTheRepository) {
  std::vector<std::filesystem::path> files = SchemaFiles();
  size_t formatted = 0;
  size_t shipped = 0;
  for (const auto& path : files) {
    std::string text = ReadAll(path);
    std::string json = Json(text);
    if (json.rfind("error: ", 0) == 0) {
      // A schema that does not read (a regression case of the validator) is
      // reported, never formatted; one whose names do not resolve still
      // formats.
      // (The stdlib's schemas other than scheduling's name each other's types.)
      std::string error;
      std::string out = FormatText(text, &error);
      if (!error.empty()) continue;
      EXPECT_EQ(FormatText(out, &error), out) << path;
      if (path.string().find("/stdlib/") != std::string::npos) {
        ++shipped;
        EXPECT_EQ(out, text) << path << " is not in canonical layout (charter fmt -w)";
      }
      continue;
    }
    std::string out = CheckFormats(path.string(), text);
    ++formatted;
    if (path.string().find("/stdlib/") != std::string::npos) {
      ++shipped;
      EXPECT_EQ(out, text) << path << " is not in canonical layout (charter fmt -w)";
    }
    // A comment after every `{`, `,` and `;` (outside strings and comments)
    // is kept, and the output is still a fixed point.
    std::string commented;
    int marks = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      commented.push_back(c);
      if (in_string) {
        if (c == '\\' && i + 1 < text.size()) {
          commented.push_back(text[++i]);
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
        size_t end = text.find('\n', i);
        if (end == std::string::npos) end = text.size();
        commented.append(text, i + 1, end - i - 1);
        i = end - 1;
      } else if (c == '{' || c == ',' || c == ';') {
        internal::CatAppend(&commented, " // mark", marks++, "\n");
      }
    }
    std::string again = CheckFormats(path.string() + " with comments", commented);
    for (int m = 0; m < marks && !again.empty(); ++m) {
      std::string mark = internal::Cat("// mark", m, "\n");
      ASSERT_NE(again.find(mark), std::string::npos) << path << ": lost " << mark << " from\n" << again;
    }
  }
  EXPECT_GE(formatted, 10u);
  EXPECT_EQ(shipped, 3u);
}

}  // namespace
}  // namespace charter
