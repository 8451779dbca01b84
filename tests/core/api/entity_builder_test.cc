// Entities and requests built in code (charter/value.h, Entities::Extend of
// charter::Entity, Request::Create with a Value context): the same store
// and the same decisions as the same entities' JSON, read with or without a
// schema, and the same refusals.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "charter/charter.h"
#include "charter/schema.h"
#include "charter/value.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "json/json.h"

namespace charter {
namespace {

using ::testing::HasSubstr;
namespace json = internal::json;

std::string Read(const std::string& path) {
  std::ifstream in(std::string(CHARTER_SOURCE_DIR) + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Engine MustCompile(const std::string& path) {
  SourceFile source(path, Read(path));
  Diagnostics diagnostics;
  absl::StatusOr<Bundle> bundle = Compile(source, {}, &diagnostics);
  EXPECT_TRUE(bundle.ok()) << diagnostics.Render(source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  EXPECT_TRUE(engine.ok()) << engine.status();
  return *std::move(engine);
}

Schema MustSchema(const std::string& path) {
  SourceFile source(path, Read(path));
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(source, {}, &diagnostics);
  EXPECT_TRUE(schema.ok()) << diagnostics.Render(source);
  return *std::move(schema);
}

EntityUid UidOf(const json::Value& v) {
  const json::Value* inner = v.Find("__entity");
  const json::Value& u = inner != nullptr ? *inner : v;
  return EntityUid{std::string(u.Find("type")->as_string()), std::string(u.Find("id")->as_string())};
}

// A value of Cedar's JSON value encoding, as a Value built in code.
Value ValueOf(const json::Value& v) {
  switch (v.kind()) {
    case json::Kind::kBool: return Value::Bool(v.as_bool());
    case json::Kind::kNumber: return Value::Long(v.as_int64());
    case json::Kind::kString: return Value::String(std::string(v.as_string()));
    case json::Kind::kArray: {
      std::vector<Value> elements;
      for (size_t i = 0; i < v.size(); ++i) elements.push_back(ValueOf(v.at(i)));
      return Value::Set(std::move(elements));
    }
    case json::Kind::kObject: {
      if (v.size() == 1 && v.key(0) == "__entity") return Value::Entity(UidOf(v));
      if (v.size() == 1 && v.key(0) == "__extn") {
        const json::Value& call = v.member(0);
        return Value::Extension(std::string(call.Find("fn")->as_string()), std::string(call.Find("arg")->as_string()));
      }
      std::vector<std::pair<std::string, Value>> fields;
      for (size_t i = 0; i < v.size(); ++i) fields.emplace_back(std::string(v.key(i)), ValueOf(v.member(i)));
      return Value::Record(std::move(fields));
    }
    case json::Kind::kNull: break;
  }
  ADD_FAILURE() << "null is no value";
  return Value();
}

std::vector<std::pair<std::string, Value>> FieldsOf(const json::Value* object) {
  std::vector<std::pair<std::string, Value>> out;
  if (object == nullptr) return out;
  for (size_t i = 0; i < object->size(); ++i) out.emplace_back(std::string(object->key(i)), ValueOf(object->member(i)));
  return out;
}

// Cedar's JSON entity format, as entities built in code.
std::vector<Entity> EntitiesOf(const std::string& text) {
  absl::StatusOr<json::Document> doc = json::Parse(text);
  EXPECT_TRUE(doc.ok()) << doc.status();
  std::vector<Entity> out;
  for (size_t i = 0; i < doc->root().size(); ++i) {
    const json::Value& e = doc->root().at(i);
    Entity entity;
    entity.uid = UidOf(*e.Find("uid"));
    entity.attrs = FieldsOf(e.Find("attrs"));
    entity.tags = FieldsOf(e.Find("tags"));
    const json::Value& parents = *e.Find("parents");
    for (size_t k = 0; k < parents.size(); ++k) entity.parents.push_back(UidOf(parents.at(k)));
    out.push_back(std::move(entity));
  }
  return out;
}

std::vector<std::string> Sorted(const std::vector<EntityUid>& uids) {
  std::vector<std::string> out;
  for (const EntityUid& u : uids) out.push_back(u.ToString());
  std::sort(out.begin(), out.end());
  return out;
}

// Every entity of `a` is in `b` with the same attributes, tags and parents.
void ExpectSameStore(const Entities& a, const Entities& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const EntityUid& uid : a.Uids()) {
    std::optional<EntityInfo> x = a.Find(uid);
    std::optional<EntityInfo> y = b.Find(uid);
    ASSERT_TRUE(x.has_value() && y.has_value()) << uid.ToString();
    EXPECT_EQ(x->attrs, y->attrs) << uid.ToString();
    EXPECT_EQ(x->tags, y->tags) << uid.ToString();
    EXPECT_EQ(Sorted(x->parents), Sorted(y->parents)) << uid.ToString();
  }
}

void ExpectSameDecisions(const Engine& engine, const std::vector<Request>& requests, const Entities& a,
                         const Entities& b, size_t* allowed) {
  for (const Request& r : requests) {
    Decision x = engine.Authorize(r, a);
    Decision y = engine.Authorize(r, b);
    EXPECT_EQ(x.ToJson(), y.ToJson()) << r.principal().ToString() << " " << r.action().ToString();
    if (x.allowed) ++*allowed;
  }
}

TEST(EntityBuilder, TheGovernanceStoreBuiltInCodeIsItsJson) {
  const std::string text = Read("examples/governance/entities.json");
  const std::vector<Entity> built = EntitiesOf(text);
  ASSERT_GT(built.size(), 40u);
  Engine engine = MustCompile("examples/governance/policies.cedar");
  absl::StatusOr<std::vector<Request>> requests =
      Request::ArrayFromJson(Read("examples/governance/requests.json"), "requests.json");
  ASSERT_TRUE(requests.ok()) << requests.status();

  absl::StatusOr<Entities> from_json = Entities::FromJson(text);
  absl::StatusOr<Entities> from_code = Entities().Extend(built);
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  ASSERT_TRUE(from_code.ok()) << from_code.status();
  ExpectSameStore(*from_json, *from_code);
  size_t allowed = 0;
  ExpectSameDecisions(engine, *requests, *from_json, *from_code, &allowed);
  EXPECT_GT(allowed, 5u);
  EXPECT_LT(allowed, requests->size());

  // With the schema: values read for their declared types.
  Schema schema = MustSchema("stdlib/governance.cedarschema");
  absl::StatusOr<Entities> typed_json = Entities::FromJson(text, schema);
  absl::StatusOr<Entities> typed_code = Entities().Extend(built, schema);
  ASSERT_TRUE(typed_json.ok()) << typed_json.status();
  ASSERT_TRUE(typed_code.ok()) << typed_code.status();
  ExpectSameStore(*typed_json, *typed_code);

  // Each Entity's own JSON (Entity::ToJson) reads back as the same store.
  std::string again = "[";
  for (const Entity& e : built) again += (again.size() > 1 ? "," : "") + e.ToJson();
  absl::StatusOr<Entities> reread = Entities::FromJson(again + "]");
  ASSERT_TRUE(reread.ok()) << reread.status();
  ExpectSameStore(*from_json, *reread);
}

TEST(EntityBuilder, AnOverlayBuiltInCodeDecidesAsOneStore) {
  const std::string text = Read("examples/governance/entities.json");
  const std::vector<Entity> all = EntitiesOf(text);
  Engine engine = MustCompile("examples/governance/policies.cedar");
  absl::StatusOr<std::vector<Request>> requests =
      Request::ArrayFromJson(Read("examples/governance/requests.json"), "requests.json");
  ASSERT_TRUE(requests.ok());
  absl::StatusOr<Entities> whole = Entities::FromJson(text);
  ASSERT_TRUE(whole.ok());
  // Members and identities (the principals) laid over the rest, as a
  // server lays a request's own entities over its configured ones.
  std::vector<Entity> base, extension;
  for (const Entity& e : all) {
    bool principal = e.uid.type == "Governance::Member" || e.uid.type == "Governance::Identity";
    (principal ? extension : base).push_back(e);
  }
  ASSERT_FALSE(extension.empty());
  std::string base_json = "[";
  for (const Entity& e : base) base_json += (base_json.size() > 1 ? "," : "") + e.ToJson();
  absl::StatusOr<Entities> configured = Entities::FromJson(base_json + "]");
  ASSERT_TRUE(configured.ok()) << configured.status();
  absl::StatusOr<Entities> overlay = configured->Extend(extension);
  ASSERT_TRUE(overlay.ok()) << overlay.status();
  ExpectSameStore(*whole, *overlay);
  size_t allowed = 0;
  ExpectSameDecisions(engine, *requests, *whole, *overlay, &allowed);
  EXPECT_GT(allowed, 0u);
  // The same entities again are accepted; another version is refused.
  EXPECT_TRUE(overlay->Extend(extension).ok());
  std::vector<Entity> changed = {extension.front()};
  changed[0].attrs.emplace_back("extra", Value::Long(1));
  EXPECT_THAT(overlay->Extend(changed, "review").status().message(),
              HasSubstr("is already among the entities it extends, with different contents"));
}

constexpr char kSchema[] = R"(
entity Team;
entity Level enum ["low", "high"];
entity User in [Team] { level: Long, tier?: Level, ip?: ipaddr, limits?: { gpus: Long } } tags String;
action view appliesTo { principal: User, resource: Team, context: { mfa: Bool, from?: ipaddr } };
)";

Schema InlineSchema() {
  SourceFile source("s.cedarschema", kSchema);
  Diagnostics diagnostics;
  absl::StatusOr<Schema> schema = Schema::Parse(source, {}, &diagnostics);
  EXPECT_TRUE(schema.ok()) << diagnostics.Render(source);
  return *std::move(schema);
}

Entity User(std::vector<std::pair<std::string, Value>> attrs) {
  Entity e;
  e.uid = {"User", "alice"};
  e.attrs = std::move(attrs);
  return e;
}

std::string Refusal(const std::vector<Entity>& entities, const Schema* schema = nullptr) {
  absl::StatusOr<Entities> out =
      schema != nullptr ? Entities().Extend(entities, *schema, "built") : Entities().Extend(entities, "built");
  EXPECT_FALSE(out.ok());
  return out.ok() ? "" : std::string(out.status().message());
}

TEST(EntityBuilder, RefusesWhatItsJsonWouldBeRefusedFor) {
  Schema schema = InlineSchema();
  // Types, by the schema.
  EXPECT_THAT(Refusal({User({{"level", Value::String("3")}})}, &schema),
              HasSubstr("built: entity User::\"alice\": attribute `level`: expected `Long`, found a string"));
  EXPECT_THAT(Refusal({User({})}, &schema), HasSubstr("lacks the required attribute `level`"));
  EXPECT_THAT(Refusal({User({{"level", Value::Long(1)}, {"age", Value::Long(2)}})}, &schema),
              HasSubstr("attribute `age` is not declared in the schema"));
  EXPECT_THAT(Refusal({User({{"level", Value::Long(1)}, {"tier", Value::Entity({"Level", "mid"})}})}, &schema),
              HasSubstr("`Level::\"mid\"` is not one of the values of enumerated type `Level`"));
  EXPECT_THAT(Refusal({User({{"level", Value::Long(1)},
                             {"limits", Value::Record({{"gpus", Value::Bool(true)}})}})},
                      &schema),
              HasSubstr("attribute `limits.gpus`: expected `Long`, found a boolean"));
  Entity tagged = User({{"level", Value::Long(1)}});
  tagged.tags.emplace_back("team", Value::Long(3));
  EXPECT_THAT(Refusal({tagged}, &schema), HasSubstr("tag `team`: expected `String`, found a long"));
  Entity member = User({{"level", Value::Long(1)}});
  member.parents.push_back({"User", "bob"});
  EXPECT_THAT(Refusal({member}, &schema), HasSubstr("`User` cannot be a member of `User::\"bob\"`"));
  EXPECT_THAT(Refusal({Entity{{"Robot", "r"}, {}, {}, {}}}, &schema),
              HasSubstr("the schema declares no entity type `Robot`"));
  // An extension value as its string where the schema declares one, or as
  // a call; a string that does not parse is refused with the reason.
  EXPECT_TRUE(Entities().Extend(std::vector<Entity>{User({{"level", Value::Long(1)}, {"ip", Value::String("10.0.0.1")}})}, schema).ok());
  EXPECT_TRUE(
      Entities()
          .Extend(std::vector<Entity>{User({{"level", Value::Long(1)}, {"ip", Value::Extension("ip", "10.0.0.1")}})},
                  schema)
          .ok());
  EXPECT_THAT(Refusal({User({{"level", Value::Long(1)}, {"ip", Value::Extension("ip", "ten")}})}, &schema),
              HasSubstr("attribute `ip`"));
  EXPECT_THAT(Refusal({User({{"level", Value::Long(1)}, {"ip", Value::Extension("decimal", "1.5")}})}, &schema),
              HasSubstr("expected `ipaddr`, found a decimal"));

  // Without a schema: Cedar's rules.
  EXPECT_THAT(Refusal({User({{"a", Value::Long(1)}, {"a", Value::Long(2)}})}), HasSubstr("duplicate key `a`"));
  EXPECT_THAT(Refusal({User({{"x", Value::Extension("nope", "1")}})}), HasSubstr("unknown extension function `nope`"));
  EXPECT_THAT(Refusal({User({{"x", Value::Entity({"not a type", "1"})}})}),
              HasSubstr("`not a type` is not a valid entity type name"));
  EXPECT_THAT(Refusal({User({{"a", Value::Long(1)}}), User({{"a", Value::Long(2)}})}),
              HasSubstr("appears twice with different contents"));
  Entity a{{"G", "a"}, {}, {}, {{"G", "b"}}};
  Entity b{{"G", "b"}, {}, {}, {{"G", "a"}}};
  EXPECT_THAT(Refusal({a, b}), HasSubstr("the entity hierarchy has a cycle"));
  // Identical repeats are one entity; a set's duplicates are dropped.
  absl::StatusOr<Entities> same = Entities().Extend(std::vector<Entity>{
      User({{"s", Value::Set({Value::Long(1), Value::Long(1), Value::Long(2)})}}),
      User({{"s", Value::Set({Value::Long(1), Value::Long(1), Value::Long(2)})}})});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->size(), 1u);
  EXPECT_EQ(same->Find({"User", "alice"})->attrs, "{\"s\": [1, 2]}");
}

TEST(EntityBuilder, ARequestWithAContextBuiltInCode) {
  Schema schema = InlineSchema();
  Value context = Value::Record({{"mfa", Value::Bool(true)}, {"from", Value::String("10.0.0.1")}});
  absl::StatusOr<Request> built = Request::Create({"User", "alice"}, {"Action", "view"}, {"Team", "ml"}, context, &schema);
  ASSERT_TRUE(built.ok()) << built.status();
  absl::StatusOr<Request> read =
      Request::Create({"User", "alice"}, {"Action", "view"}, {"Team", "ml"}, context.ToJson(), &schema);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(built->ContextToCedar(), read->ContextToCedar());
  EXPECT_THAT(built->ContextToCedar(), HasSubstr("ip(\"10.0.0.1/32\")"));

  absl::StatusOr<Request> untyped = Request::Create({"User", "alice"}, {"Action", "view"}, {"Team", "ml"}, context);
  ASSERT_TRUE(untyped.ok());
  EXPECT_THAT(untyped->ContextToCedar(), HasSubstr("\"10.0.0.1\""));

  auto refusal = [&](const Value& c, EntityUid principal = {"User", "alice"}) {
    absl::StatusOr<Request> r = Request::Create(principal, {"Action", "view"}, {"Team", "ml"}, c, &schema, "req");
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : std::string(r.status().message());
  };
  EXPECT_THAT(refusal(Value::Record({})), HasSubstr("req: context: lacks the required attribute `mfa`"));
  EXPECT_THAT(refusal(Value::Record({{"mfa", Value::Long(1)}})), HasSubstr("attribute `mfa`: expected `Bool`"));
  EXPECT_THAT(refusal(Value::Long(1)), HasSubstr("must be a record"));
  EXPECT_THAT(refusal(Value::Record({{"mfa", Value::Bool(true)}}), {"Team", "x"}),
              HasSubstr("does not apply to principals of type `Team`"));
}

}  // namespace
}  // namespace charter
