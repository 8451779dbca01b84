// charter::Request from JSON: entity references in the `Type::"id"` string
// form, as {"type", "id"} or as {"__entity": ...}; the context; and errors
// prefixed with "SOURCE:LINE:COL: ".
#include "charter/request.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "unwrap/unwrap.h"
#include "charter/compiler.h"
#include "charter/diagnostics.h"
#include "gtest/gtest.h"
#include "request/request_data.h"
#include "testing/status_matchers.h"
#include "value/value.h"

namespace charter {
namespace {

using ::charter_testing::IsOk;
using ::charter_testing::StatusIs;

using internal::FindField;
using internal::ToCedar;
using internal::Type;
using internal::Value;

Request MustParse(std::string_view json) {
  absl::StatusOr<Request> r = Request::FromJson(json);
  EXPECT_THAT(r, IsOk());
  if (!r.ok()) return Request::Create({}, {}, {});
  return *std::move(r);
}

std::string ParseError(std::string_view json) {
  absl::StatusOr<Request> r = Request::FromJson(json);
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument)) << json;
  if (r.ok()) return "";
  return std::string(r.status().message());
}

std::string ArrayError(std::string_view json) {
  absl::StatusOr<std::vector<Request>> r = Request::ArrayFromJson(json);
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument)) << json;
  if (r.ok()) return "";
  return std::string(r.status().message());
}

// The principal of {"principal": <json>, ...} with the other fields valid.
absl::StatusOr<Request> WithPrincipal(std::string_view principal_json) {
  return Request::FromJson(std::string(R"({"principal": )") + std::string(principal_json) +
                           R"(, "action": "Action::\"a\"", "resource": "R::\"r\""})");
}

// The error for a principal written as the string `text` (JSON-escaped by
// the caller).
std::string PrincipalError(std::string_view principal_json) {
  absl::StatusOr<Request> r = WithPrincipal(principal_json);
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument)) << principal_json;
  if (r.ok()) return "";
  return std::string(r.status().message());
}

constexpr char kHint[] = "; write it as `Type::\"id\"` or as an object with `type` and `id`";

// ---------------------------------------------------------------------------
// Entity reference forms

TEST(RequestFromJson, StringForm) {
  Request r = MustParse(R"({"principal": "User::\"alice\"", "action": "Action::\"view\"",
                            "resource": "Photo::\"p.jpg\""})");
  EXPECT_EQ(r.principal(), (EntityUid{"User", "alice"}));
  EXPECT_EQ(r.action(), (EntityUid{"Action", "view"}));
  EXPECT_EQ(r.resource(), (EntityUid{"Photo", "p.jpg"}));
  // No context means an empty record.
  EXPECT_EQ(internal::Unwrap::Data(r).context.type, Type::kRecord);
  EXPECT_EQ(internal::Unwrap::Data(r).context.size, 0u);
  // The bound references view the uids.
  EXPECT_EQ(internal::Unwrap::Data(r).principal_ref.type, "User");
  EXPECT_EQ(internal::Unwrap::Data(r).principal_ref.id, "alice");
  EXPECT_EQ(internal::Unwrap::Data(r).principal_ref.uid, internal::kNoUid);
  EXPECT_EQ(internal::Unwrap::Data(r).resource_ref.id, "p.jpg");
}

TEST(RequestFromJson, StringFormWithNamespaces) {
  Request r = MustParse(R"({"principal": "A::B::User::\"x\"", "action": "NS::Action::\"view\"",
                            "resource": "_a1::T_2::\"\""})");
  EXPECT_EQ(r.principal(), (EntityUid{"A::B::User", "x"}));
  EXPECT_EQ(r.action(), (EntityUid{"NS::Action", "view"}));
  EXPECT_EQ(r.resource(), (EntityUid{"_a1::T_2", ""}));
}

TEST(RequestFromJson, StringFormEscapesInTheId) {
  // JSON decodes first; then Cedar's escapes inside the quoted id.
  absl::StatusOr<Request> r =
      WithPrincipal(R"("User::\"a\\\"b\\\\c\\n\\t\\r\\0\\'\\u{e9}\\u{1F600}:: \"")");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->principal().type, "User");
  EXPECT_EQ(r->principal().id,
            std::string("a\"b\\c\n\t\r\0'\xC3\xA9\xF0\x9F\x98\x80:: ", 19));
  // Non-ASCII characters may also appear literally.
  r = WithPrincipal("\"User::\\\"\xC3\xA9t\xC3\xA9\\\"\"");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->principal().id, "\xC3\xA9t\xC3\xA9");
}

TEST(RequestFromJson, StringFormHexEscape) {
  absl::StatusOr<Request> r = WithPrincipal(R"("User::\"\\x41\\x7f\"")");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->principal().id, "A\x7f");
  EXPECT_NE(PrincipalError(R"("User::\"\\x80\"")"), "");
}

TEST(RequestFromJson, ObjectForms) {
  Request r = MustParse(R"({
    "principal": {"type": "NS::User", "id": "alice"},
    "action": {"__entity": {"type": "Action", "id": "view"}},
    "resource": {"id": "a \"quoted\" id", "type": "Photo"}
  })");
  EXPECT_EQ(r.principal(), (EntityUid{"NS::User", "alice"}));
  EXPECT_EQ(r.action(), (EntityUid{"Action", "view"}));
  // In the object form the id is taken as is: no Cedar escapes.
  EXPECT_EQ(r.resource(), (EntityUid{"Photo", "a \"quoted\" id"}));
  r = MustParse(R"({"principal": {"type": "U", "id": "\\n"}, "action": "Action::\"a\"",
                    "resource": "R::\"r\""})");
  EXPECT_EQ(r.principal().id, "\\n");
}

TEST(RequestFromJson, MixedFormsAndKeyOrder) {
  Request r = MustParse(R"({"resource": {"type": "R", "id": "r"}, "description": "any text",
                            "action": "Action::\"a\"",
                            "principal": {"__entity": {"id": "p", "type": "P"}}})");
  EXPECT_EQ(r.principal(), (EntityUid{"P", "p"}));
  EXPECT_EQ(r.action(), (EntityUid{"Action", "a"}));
  EXPECT_EQ(r.resource(), (EntityUid{"R", "r"}));
}

TEST(RequestFromJson, Create) {
  Request r = Request::Create({"User", "a"}, {"Action", "b"}, {"Doc", "c"});
  EXPECT_EQ(r.principal(), (EntityUid{"User", "a"}));
  EXPECT_EQ(r.action(), (EntityUid{"Action", "b"}));
  EXPECT_EQ(r.resource(), (EntityUid{"Doc", "c"}));
  EXPECT_EQ(internal::Unwrap::Data(r).action_ref.type, "Action");
  EXPECT_EQ(internal::Unwrap::Data(r).action_ref.id, "b");
  EXPECT_EQ(internal::Unwrap::Data(r).context.size, 0u);
}

// ---------------------------------------------------------------------------
// Context

TEST(RequestFromJson, Context) {
  Request r = MustParse(R"({"principal": "U::\"p\"", "action": "Action::\"a\"",
    "resource": "R::\"r\"",
    "context": {"mfa": true, "n": -9223372036854775808, "s": "x", "tags": ["a", "b", "a"],
                "who": {"__entity": {"type": "User", "id": "bob"}},
                "nested": {"z": 1, "a": {}}}})");
  const Value& c = internal::Unwrap::Data(r).context;
  ASSERT_EQ(c.type, Type::kRecord);
  EXPECT_EQ(c.size, 6u);
  EXPECT_EQ(ToCedar(c),
            R"({"mfa": true, "n": -9223372036854775808, "nested": {"a": {}, "z": 1}, )"
            R"("s": "x", "tags": ["a", "b"], "who": User::"bob"})");
  const Value* who = FindField(c, "who");
  ASSERT_NE(who, nullptr);
  ASSERT_EQ(who->type, Type::kEntity);
  EXPECT_EQ(who->entity->type, "User");
  EXPECT_EQ(who->entity->id, "bob");
  EXPECT_EQ(who->entity->uid, internal::kNoUid);
  const Value* nested = FindField(c, "nested");
  ASSERT_NE(nested, nullptr);
  ASSERT_NE(FindField(*nested, "z"), nullptr);
  EXPECT_EQ(FindField(*nested, "z")->i, 1);
  EXPECT_EQ(FindField(c, "missing"), nullptr);
}

TEST(RequestFromJson, ContextOutlivesTheInput) {
  absl::StatusOr<Request> r;
  {
    std::string json = R"({"principal": "U::\"p\"", "action": "Action::\"a\"",
                           "resource": "R::\"r\"", "context": {"key": "value"}})";
    r = Request::FromJson(json);
    json.assign(json.size(), 'x');
  }
  ASSERT_THAT(r, IsOk());
  Request copy = *r;
  r = absl::InvalidArgumentError("gone");
  ASSERT_NE(FindField(internal::Unwrap::Data(copy).context, "key"), nullptr);
  EXPECT_EQ(FindField(internal::Unwrap::Data(copy).context, "key")->string(), "value");
  EXPECT_EQ(copy.principal().id, "p");
}

TEST(RequestFromJson, ContextErrors) {
  EXPECT_EQ(ParseError(R"({"principal": "U::\"p\"", "action": "Action::\"a\"", "resource": "R::\"r\"", "context": []})"),
            "request.json:1:89: `context` must be a JSON object");
  EXPECT_EQ(ParseError(R"({"principal": "U::\"p\"", "action": "Action::\"a\"", "resource": "R::\"r\"", "context": {"x": 1.5}})"),
            "request.json:1:95: `1.5` is not an integer; only integers are values");
  EXPECT_EQ(ParseError(R"({"principal": "U::\"p\"", "action": "Action::\"a\"", "resource": "R::\"r\"", "context": {"x": 9223372036854775808}})"),
            "request.json:1:95: integer `9223372036854775808` does not fit in 64 bits");
  EXPECT_EQ(ParseError(R"({"principal": "U::\"p\"", "action": "Action::\"a\"", "resource": "R::\"r\"", "context": {"x": {"__extn": {"fn": "ip", "arg": "1.2.3"}}}})").substr(0, 19),
            "request.json:1:126:");
  EXPECT_EQ(ParseError(R"({"principal": "U::\"p\"", "action": "Action::\"a\"", "resource": "R::\"r\"", "context": null})"),
            "request.json:1:89: `context` must be a JSON object");
}

TEST(RequestFromJson, DeepContextIsRejected) {
  std::string json = R"({"principal": "U::\"p\"", "action": "Action::\"a\"", "resource": "R::\"r\"", "context": {"x": )";
  json += std::string(100000, '[') + std::string(100000, ']') + "}}";
  std::string message = ParseError(json);
  EXPECT_EQ(message.substr(0, 15), "request.json:1:") << message;
}

// ---------------------------------------------------------------------------
// Other fields

TEST(RequestFromJson, Description) {
  Request r = MustParse(R"({"description": "alice views", "principal": "U::\"p\"",
                            "action": "Action::\"a\"", "resource": "R::\"r\""})");
  EXPECT_EQ(r.principal().id, "p");
  EXPECT_EQ(ParseError(R"({"description": 7, "principal": "U::\"p\"", "action": "Action::\"a\"", "resource": "R::\"r\""})"),
            "request.json:1:17: `description` must be a string");
}

TEST(RequestFromJson, UnknownKey) {
  EXPECT_EQ(ParseError(R"({"principal": "U::\"p\"", "action": "Action::\"a\"",
  "resource": "R::\"r\"", "Context": {}})"),
            "request.json:2:27: unexpected key `Context` in a request; expected `principal`, "
            "`action`, `resource`, `context` or `description`");
}

TEST(RequestFromJson, MissingFields) {
  EXPECT_EQ(ParseError(R"( {"action": "Action::\"a\"", "resource": "R::\"r\""})"),
            "request.json:1:2: a request lacks `principal`");
  EXPECT_EQ(ParseError(R"({"principal": "U::\"p\"", "resource": "R::\"r\""})"),
            "request.json:1:1: a request lacks `action`");
  EXPECT_EQ(ParseError(R"({"principal": "U::\"p\"", "action": "Action::\"a\""})"),
            "request.json:1:1: a request lacks `resource`");
  EXPECT_EQ(ParseError("{}"), "request.json:1:1: a request lacks `principal`");
}

TEST(RequestFromJson, NotAnObject) {
  EXPECT_EQ(ParseError("[]"), "request.json:1:1: a request must be a JSON object");
  EXPECT_EQ(ParseError("\n\n  \"U::\\\"p\\\"\""), "request.json:3:3: a request must be a JSON object");
}

TEST(RequestFromJson, MalformedJson) {
  std::string message = ParseError("{\"principal\": \"U::\\\"p\\\"\",\n  \"action\" \"x\"}");
  EXPECT_EQ(message.substr(0, 19), "request.json:2:12: ") << message;
  message = ParseError("");
  EXPECT_EQ(message.substr(0, 17), "request.json:1:1:") << message;
  absl::StatusOr<Request> named = Request::FromJson("{", "in/r.json");
  ASSERT_THAT(named, StatusIs(absl::StatusCode::kInvalidArgument, testing::StartsWith("in/r.json:1:2:")));
}

// ---------------------------------------------------------------------------
// Bad entity references

TEST(RequestEntityErrors, BadStringForms) {
  const std::string at = "request.json:1:15: `principal` is not an entity reference: ";
  EXPECT_EQ(PrincipalError(R"("User")"), at + "expected `::` after the entity type" + kHint);
  EXPECT_EQ(PrincipalError(R"("User::alice")"), at + "expected `::` after the entity type" + kHint);
  EXPECT_EQ(PrincipalError(R"("::\"a\"")"), at + "expected an entity type name" + kHint);
  EXPECT_EQ(PrincipalError(R"("1U::\"a\"")"), at + "expected an entity type name" + kHint);
  EXPECT_EQ(PrincipalError(R"("")"), at + "expected an entity type name" + kHint);
  EXPECT_EQ(PrincipalError(R"("A::::\"a\"")"), at + "expected an entity type name" + kHint);
  EXPECT_EQ(PrincipalError(R"("User::\"a\"x")"),
            at + "expected the entity id as a quoted string ending the reference" + kHint);
  EXPECT_EQ(PrincipalError(R"("User::\"a")"),
            at + "expected the entity id as a quoted string ending the reference" + kHint);
  EXPECT_EQ(PrincipalError(R"("User::\"a\\\"")"),
            at + "expected the entity id as a quoted string ending the reference" + kHint);
  EXPECT_EQ(PrincipalError(R"(" User::\"a\"")"), at + "expected an entity type name" + kHint);
  // Reserved names, refused as the object form refuses them (and Cedar).
  EXPECT_EQ(PrincipalError(R"("if::\"a\"")"), at + "`if` is not a valid entity type name" + kHint);
  EXPECT_EQ(PrincipalError(R"("__cedar::\"a\"")"),
            at + "`__cedar` is not a valid entity type name" + kHint);
  EXPECT_EQ(PrincipalError(R"("NS::true::\"a\"")"),
            at + "`NS::true` is not a valid entity type name" + kHint);
  EXPECT_EQ(PrincipalError(R"({"type": "if", "id": "a"})"),
            "request.json:1:24: `if` is not a valid entity type name");
}

TEST(RequestEntityErrors, BadEscapesInStringForm) {
  const std::string at = "request.json:1:15: `principal` is not an entity reference: ";
  EXPECT_EQ(PrincipalError(R"("User::\"\\q\"")"),
            at + "invalid escape `\\q` in the entity id" + kHint);
  EXPECT_EQ(PrincipalError(R"("User::\"\\*\"")"),
            at + "invalid escape `\\*` in the entity id" + kHint);
  for (std::string_view bad : {R"("User::\"\\u{D800}\"")", R"("User::\"\\u{110000}\"")",
                               R"("User::\"\\u{}\"")", R"("User::\"\\u{1234567}\"")",
                               R"("User::\"\\u0041\"")", R"("User::\"\\u{4g}\"")",
                               R"("User::\"\\u{41\"")"}) {
    EXPECT_EQ(PrincipalError(bad), at + "invalid `\\u` escape in the entity id" + kHint) << bad;
  }
}

TEST(RequestEntityErrors, BadObjectForms) {
  EXPECT_EQ(PrincipalError(R"({"type": "User"})"), "request.json:1:15: `principal` lacks `id`");
  EXPECT_EQ(PrincipalError(R"({"id": "a"})"), "request.json:1:15: `principal` lacks `type`");
  EXPECT_EQ(PrincipalError(R"({"type": "User", "id": "a", "extra": 1})"),
            "request.json:1:43: unexpected key `extra` in `principal`; expected `type` and `id`");
  EXPECT_EQ(PrincipalError(R"({"type": "User", "id": 1})"),
            "request.json:1:38: the `id` of `principal` must be a string");
  EXPECT_EQ(PrincipalError(R"({"type": "1User", "id": "a"})"),
            "request.json:1:24: `1User` is not a valid entity type name");
  EXPECT_EQ(PrincipalError("5"),
            "request.json:1:15: `principal` must be an object with `type` and `id`");
  EXPECT_EQ(PrincipalError(R"({"__entity": "User::\"a\""})"),
            "request.json:1:15: `principal` must be an object with `type` and `id`");
  absl::StatusOr<Request> r = Request::FromJson(
      R"({"principal": "U::\"p\"", "action": ["Action::\"a\""], "resource": "R::\"r\""})");
  ASSERT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument,
                          "request.json:1:37: `action` must be an object with `type` and `id`"));
  r = Request::FromJson(
      R"({"principal": "U::\"p\"", "action": "Action::\"a\"", "resource": "R"})");
  ASSERT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument,
                          std::string("request.json:1:66: `resource` is not an entity reference: expected `::` "
                                      "after the entity type") + kHint));
}

TEST(RequestEntityErrors, ColumnsCountCharacters) {
  // `é` before the fault counts as one column.
  EXPECT_EQ(ParseError("{\"description\": \"\xC3\xA9\xC3\xA9\", \"x\": 1}"),
            "request.json:1:23: unexpected key `x` in a request; expected `principal`, "
            "`action`, `resource`, `context` or `description`");
}

// ---------------------------------------------------------------------------
// Arrays of requests

TEST(RequestArrayFromJson, Several) {
  absl::StatusOr<std::vector<Request>> rs = Request::ArrayFromJson(R"([
    {"principal": "U::\"a\"", "action": "Action::\"x\"", "resource": "R::\"1\""},
    {"principal": {"type": "U", "id": "b"}, "action": "Action::\"y\"", "resource": "R::\"2\"",
     "context": {"k": 1}}
  ])");
  ASSERT_THAT(rs, IsOk());
  ASSERT_EQ(rs->size(), 2u);
  EXPECT_EQ((*rs)[0].principal().id, "a");
  EXPECT_EQ(internal::Unwrap::Data((*rs)[0]).context.size, 0u);
  EXPECT_EQ((*rs)[1].principal().id, "b");
  EXPECT_EQ((*rs)[1].action().id, "y");
  ASSERT_NE(FindField(internal::Unwrap::Data((*rs)[1]).context, "k"), nullptr);
  EXPECT_EQ(FindField(internal::Unwrap::Data((*rs)[1]).context, "k")->i, 1);

  absl::StatusOr<std::vector<Request>> none = Request::ArrayFromJson(" [] ");
  ASSERT_THAT(none, IsOk());
  EXPECT_TRUE(none->empty());
}

TEST(RequestArrayFromJson, Errors) {
  EXPECT_EQ(ArrayError("{}"), "requests.json:1:1: requests must be a JSON array of request objects");
  EXPECT_EQ(ArrayError(R"([
  {"principal": "U::\"a\"", "action": "Action::\"x\"", "resource": "R::\"1\""},
  {"principal": "U::\"a\"", "action": "Action::\"x\""}
])"),
            "requests.json:3:3: a request lacks `resource`");
  EXPECT_EQ(ArrayError(R"([
  {"principal": "U::\"a\"", "action": "Action::\"x\"", "resource": "R::\"1\""},
  7])"),
            "requests.json:3:3: a request must be a JSON object");
  EXPECT_EQ(ArrayError(R"([{"principal": "U::\"a\"", "action": "Action::\"x\"",
    "resource": "R::\"1\"", "context": {"a": 1, "a": 2}}])"),
            "requests.json:2:49: duplicate key `a`");
  std::string message = ArrayError("[\n  {\"principal\": }\n]");
  EXPECT_EQ(message.substr(0, 19), "requests.json:2:17:") << message;
  absl::StatusOr<std::vector<Request>> named = Request::ArrayFromJson("[1]", "batch.json");
  ASSERT_THAT(named, StatusIs(absl::StatusCode::kInvalidArgument, "batch.json:1:2: a request must be a JSON object"));
}

// Faults in request and template-link JSON are Diagnostics: a code, the
// message, and a span that underlines the value or key at fault.
void ExpectFault(std::string_view json, const absl::Status& status, std::string_view code,
                 std::string_view message, std::string_view underlined) {
  ASSERT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument)) << json;
  std::optional<Diagnostic> d = DiagnosticOf(status);
  ASSERT_TRUE(d.has_value()) << status;
  EXPECT_EQ(d->code, code) << json;
  EXPECT_EQ(d->message, message) << json;
  ASSERT_LE(d->span.end, json.size());
  EXPECT_EQ(json.substr(d->span.begin, d->span.end - d->span.begin), underlined) << json;
}

TEST(RequestDiagnostics, EachFaultHasACodeAndASpan) {
  std::string_view json = R"({"principal": "U::\"a\"", "action": "Action::\"x\"",
 "resource": "U::\"b\"", "bogus": 1})";
  ExpectFault(json, Request::FromJson(json).status(), "CH0604",
              "unexpected key `bogus` in a request; expected `principal`, `action`, `resource`, "
              "`context` or `description`",
              R"("bogus")");
  json = R"({"principal": "U::\"a\"", "action": "Action::\"x\""})";
  ExpectFault(json, Request::FromJson(json).status(), "CH0603", "a request lacks `resource`", json);
  json = R"({"principal": "U::a", "action": "Action::\"x\"", "resource": "U::\"b\""})";
  absl::StatusOr<Request> r = Request::FromJson(json);
  ASSERT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(DiagnosticOf(r.status())->code, "CH0605");
  EXPECT_EQ(std::string(json.substr(DiagnosticOf(r.status())->span.begin, 6)), R"("U::a")");
  json = R"([{"principal": "U::\"a\"", "action": "Action::\"x\"", "resource": "U::\"b\"", }])";
  ExpectFault(json, Request::ArrayFromJson(json).status(), "CH0600", "trailing comma before `}`", ",");
  json = R"({"requests": []})";
  ExpectFault(json, Request::ArrayFromJson(json).status(), "CH0602",
              "requests must be a JSON array of request objects", json);
}

TEST(TemplateLinkDiagnostics, EachFaultHasACodeAndASpan) {
  std::string_view json = R"([{"template_id": "t", "link_id": "l", "args": {"?who": "U::\"a\""}}])";
  ExpectFault(json, ParseTemplateLinks(json, "links.json").status(), "CH0604",
              "unknown slot `?who`; the slots are `?principal` and `?resource`", R"("?who")");
  json = R"([{"template_id": "t", "args": {}}])";
  ExpectFault(json, ParseTemplateLinks(json, "links.json").status(), "CH0603",
              "a template link lacks `link_id`", R"({"template_id": "t", "args": {}})");
}

}  // namespace
}  // namespace charter
