// The C API (bindings/c/include/charter.h) over the public C++ API. Compiled
// into libcharter with exceptions on, so that every entry point can catch
// what the C++ side might throw (std::bad_alloc) and turn it into a status:
// no exception, and no abort, crosses into C.
#include "charter.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <unordered_map>
#include <vector>
#include <string>
#include <span>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "charter/charter.h"
#include "charter/query.h"
#include "charter/schedule.h"
#include "charter/schema.h"
#include "charter/version.h"

// --- handles -------------------------------------------------------------------
//
// Each handle is a Shell: a tag saying which kind of handle it is, then the
// C++ object. The free functions clear the tag before releasing the memory,
// so that a handle used after its free is refused while its memory has not
// been reused. INVARIANT: the tag sits 16 bytes into the allocation, past
// the bytes that malloc's free lists write into a freed block.

namespace {

constexpr uint64_t kEngineTag = 0x4348'454e'4731'0001;   // "CHENG1"
constexpr uint64_t kEntitiesTag = 0x4348'454e'5431'0002;
constexpr uint64_t kRequestTag = 0x4348'5251'5431'0003;
constexpr uint64_t kContextTag = 0x4348'4354'5831'0004;
constexpr uint64_t kHandleTag = 0x4348'4844'4c31'0005;
constexpr uint64_t kErrorTag = 0x4348'4552'5231'0006;
constexpr uint64_t kQueryTag = 0x4348'5155'5931'0007;
constexpr uint64_t kMatchTag = 0x4348'4d41'5431'0008;
constexpr uint64_t kPageTag = 0x4348'5047'4531'0009;
constexpr uint64_t kResidualTag = 0x4348'5253'4431'000a;
constexpr uint64_t kSchemaTag = 0x4348'5343'4831'000b;
constexpr uint64_t kValueTag = 0x4348'5641'4c31'000c;
constexpr uint64_t kFreed = 0xdead'f7ee'dead'f7ee;

template <uint64_t kTag, typename T>
struct Shell {
  template <typename... Args>
  explicit Shell(Args&&... args) : value(std::forward<Args>(args)...) {}
  unsigned char reserved[16] = {};
  uint64_t tag = kTag;
  T value;
};

// Reads a handle's tag. A handle already freed is memory the caller should
// not touch; this read is how the API refuses it instead of crashing, so the
// address sanitizer is told that it is deliberate.
#if defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
uint64_t ReadTag(const volatile uint64_t* tag) {
  return *tag;
}

}  // namespace

struct EntitiesData {
  charter::Entities store;
  std::optional<charter::Schema> schema;      // the schema it was read with
  std::string fingerprint;                    // its Fingerprint(), or empty
};

// A diagnostic with its position, owned (charter_diagnostic views it).
struct DiagnosticData {
  charter_severity severity = CHARTER_SEVERITY_ERROR;
  std::string code, message, source, help;
  uint32_t line = 0, column = 0;
};

// A schema with its renderings, made once at parse.
struct SchemaData {
  explicit SchemaData(charter::Schema s) : schema(std::move(s)) {}
  charter::Schema schema;
  std::string json, cedar, fingerprint;
  std::vector<std::string> entity_types, actions;
};

// What an engine compiled from text keeps for queries: its schema (queries
// are checked against it) and its text, read again by a PartialEvaluator on
// the first residual (made once, under `once`; immutable after).
struct PolicyText {
  std::string text;
  std::string source_name = "policies.cedar";
  std::vector<charter::TemplateLink> links;
  std::optional<charter::Schema> schema;
  std::once_flag once;
  absl::StatusOr<charter::PartialEvaluator> evaluator = absl::UnknownError("not made");
};

struct charter_engine : Shell<kEngineTag, charter::Engine> {
  using Shell::Shell;
  std::shared_ptr<PolicyText> text;  // null for an engine from a bundle
  // The schema requests and queries are read with (a typed engine's), and
  // the store NULL entities stand for (the schema's actions when typed).
  std::shared_ptr<const charter::Schema> schema;
  std::shared_ptr<const charter::Entities> empty;
  std::vector<DiagnosticData> warnings;
  std::vector<std::string> ids;                          // policy ids, in order
  std::unordered_map<std::string_view, size_t> index;  // into ids
};
struct charter_entities : Shell<kEntitiesTag, EntitiesData> {
  using Shell::Shell;
  std::once_flag uids_once;  // charter_entities_uid makes `uids` on first use
  std::vector<charter::EntityUid> uids;
};
struct charter_schema : Shell<kSchemaTag, SchemaData> {
  using Shell::Shell;
};
struct charter_request : Shell<kRequestTag, charter::Request> {
  using Shell::Shell;
};
struct charter_eval_context : Shell<kContextTag, charter::EvalContext> {
  using Shell::Shell;
};
struct charter_engine_handle : Shell<kHandleTag, charter::EngineHandle> {
  using Shell::Shell;
};

// A match is a view: of a QueryMatchView while a callback runs, or of a
// QueryMatch of a page.
struct MatchData {
  const charter::QueryMatchView* view = nullptr;
  const charter::QueryMatch* owned = nullptr;
};
struct charter_match : Shell<kMatchTag, MatchData> {
  using Shell::Shell;
};
struct PageData {
  charter::ListPage page;
  std::unique_ptr<charter_match[]> matches;
};
struct charter_match_page : Shell<kPageTag, PageData> {
  using Shell::Shell;
};
struct charter_query : Shell<kQueryTag, charter::QueryRequest> {
  using Shell::Shell;
};
struct charter_residual : Shell<kResidualTag, charter::Residual> {
  using Shell::Shell;
  std::string text;  // ToText(), made once
  std::string json;  // ToJson()
};

// A value being built: a scalar as a charter::Value, a set's elements or a
// record's fields as vectors that grow by appending (charter::Value is
// immutable). A container is made into a charter::Value when it is added to
// another (moved), or when it is first used (then kept in `sealed`, so that
// using it again copies nothing; adding to it afterwards takes its parts
// back out).
struct ValueData {
  charter_value_kind kind = CHARTER_VALUE_RECORD;
  charter::Value scalar;
  std::vector<charter::Value> elements;
  std::vector<std::pair<std::string, charter::Value>> fields;
  std::optional<charter::Value> sealed;  // a container, made
};
struct charter_value : Shell<kValueTag, ValueData> {
  using Shell::Shell;
};

struct ErrorData {
  charter_status status = CHARTER_ERROR_INTERNAL;
  std::string message;
  std::string detail;
  std::string source;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string code;                         // charter_error_code
  std::vector<DiagnosticData> diagnostics;  // of policy or schema text
};
struct charter_error : Shell<kErrorTag, ErrorData> {
  using Shell::Shell;
};

namespace {

using charter::Engine;
using charter::EntityUid;

charter_status FromCode(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk: return CHARTER_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kDataLoss: return CHARTER_ERROR_INVALID_ARGUMENT;
    case absl::StatusCode::kNotFound: return CHARTER_ERROR_NOT_FOUND;
    case absl::StatusCode::kPermissionDenied: return CHARTER_ERROR_PERMISSION_DENIED;
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kOutOfRange: return CHARTER_ERROR_LIMIT_EXCEEDED;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kAborted: return CHARTER_ERROR_IO;
    default: return CHARTER_ERROR_INTERNAL;
  }
}

// Reads "SOURCE:LINE:COL: " at the front of a message, where SOURCE is the
// name the library gave the input.
void FindPlace(ErrorData* e, std::string_view source) {
  std::string_view m = e->message;
  if (source.empty() || m.substr(0, source.size()) != source || m.size() <= source.size() ||
      m[source.size()] != ':') {
    return;
  }
  size_t i = source.size() + 1;
  auto number = [&](uint32_t* out) {
    uint64_t n = 0;
    size_t start = i;
    while (i < m.size() && m[i] >= '0' && m[i] <= '9' && n < 0xffffffffu) n = n * 10 + (m[i++] - '0');
    if (i == start || i >= m.size() || m[i] != ':') return false;
    *out = static_cast<uint32_t>(n);
    ++i;
    return true;
  };
  uint32_t line = 0, column = 0;
  if (number(&line) && number(&column)) {
    e->source = std::string(source);
    e->line = line;
    e->column = column;
  }
}

// Sets *error (when asked for) and returns `status`. Never throws: an error
// that cannot be allocated is reported by its status alone.
charter_status Fail(charter_error** error, charter_status status, std::string_view message,
                    std::string_view source = {}, std::string_view detail = {}) {
  if (error == nullptr) return status;
  charter_error* e = new (std::nothrow) charter_error();
  if (e == nullptr) return status;
  try {
    e->value.status = status;
    e->value.message = std::string(message);
    e->value.detail = std::string(detail.empty() ? message : detail);
    FindPlace(&e->value, source);
  } catch (...) {
    e->value = ErrorData{};
    e->value.status = status;
  }
  *error = e;
  return status;
}

charter_status FailStatus(charter_error** error, const absl::Status& s, std::string_view source = {},
                          std::string_view detail = {}) {
  charter_status status =
      Fail(error, FromCode(s.code()), std::string_view(s.message().data(), s.message().size()), source, detail);
  if (error != nullptr && *error != nullptr) {
    if (std::optional<charter::Diagnostic> d = charter::DiagnosticOf(s)) (*error)->value.code = d->code;
  }
  return status;
}

std::vector<DiagnosticData> DiagnosticList(const charter::Diagnostics& diagnostics,
                                           const charter::SourceFile& source) {
  std::vector<DiagnosticData> out;
  for (const charter::Diagnostic& d : diagnostics.items()) {
    charter::SourceFile::Position p = source.PositionOf(d.span.begin);
    out.push_back(DiagnosticData{d.severity == charter::Severity::kError ? CHARTER_SEVERITY_ERROR
                                                                          : CHARTER_SEVERITY_WARNING,
                                 d.code, d.message, source.name(), d.help, p.line, p.column});
  }
  return out;
}

// A failed status of a compile or a schema's parse, with every diagnostic,
// and the first error's code.
charter_status FailDiagnostics(charter_error** error, const absl::Status& s, const charter::Diagnostics& diagnostics,
                               const charter::SourceFile& source) {
  charter_status status = FailStatus(error, s, source.name(), diagnostics.Render(source));
  if (error != nullptr && *error != nullptr && (*error)->value.status == status) {
    ErrorData& e = (*error)->value;
    e.diagnostics = DiagnosticList(diagnostics, source);
    for (const DiagnosticData& d : e.diagnostics) {
      if (d.severity == CHARTER_SEVERITY_ERROR) {
        e.code = d.code;
        break;
      }
    }
  }
  return status;
}

void FillDiagnostic(const DiagnosticData& d, charter_diagnostic* out) {
  out->severity = d.severity;
  out->code = d.code.c_str();
  out->code_length = d.code.size();
  out->message = d.message.c_str();
  out->message_length = d.message.size();
  out->source = d.source.c_str();
  out->source_length = d.source.size();
  out->line = d.line;
  out->column = d.column;
  out->help = d.help.c_str();
  out->help_length = d.help.size();
}

// Runs `body` (which returns a charter_status), turning any exception into
// a status.
template <typename F>
charter_status Guard(charter_error** error, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(error, CHARTER_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return Fail(error, CHARTER_ERROR_INTERNAL, e.what());
  } catch (...) {
    return Fail(error, CHARTER_ERROR_INTERNAL, "unknown internal error");
  }
}

template <typename H>
bool Live(const H* h, uint64_t tag) {
  return h != nullptr && ReadTag(&h->tag) == tag;
}

// Checks a handle argument: NULL and bad handles are statuses naming it.
template <typename H>
charter_status CheckHandle(const H* h, uint64_t tag, const char* kind, charter_error** error) {
  if (h == nullptr) {
    return Fail(error, CHARTER_ERROR_NULL_HANDLE, std::string("a NULL ") + kind + " handle");
  }
  if (ReadTag(&h->tag) != tag) {
    return Fail(error, CHARTER_ERROR_BAD_HANDLE,
                std::string("not a live ") + kind + " handle (freed already, or a handle of another kind)");
  }
  return CHARTER_OK;
}

#define CHARTER_CHECK_HANDLE(h, tag, kind)                             \
  do {                                                                \
    charter_status check_status = CheckHandle(h, tag, kind, error);  \
    if (check_status != CHARTER_OK) return check_status;             \
  } while (0)

// A (pointer, length) argument, refused when the pointer is NULL with a
// nonzero length.
bool Text(const char* p, size_t n, std::string_view* out) {
  if (p == nullptr && n != 0) return false;
  *out = p == nullptr ? std::string_view() : std::string_view(p, n);
  return true;
}

#define CHARTER_TEXT(var, p, n, what)                                                       \
  std::string_view var;                                                                    \
  if (!Text(p, n, &var)) {                                                                 \
    return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, what " is NULL with a nonzero length"); \
  }

// A file path argument: not NULL with a nonzero length, not empty, and no
// NUL byte (the operating system would read the path only up to it, and
// open another file than the one named).
#define CHARTER_PATH(var, p, n)                                                                     \
  CHARTER_TEXT(var, p, n, "the path");                                                              \
  if (var.empty()) return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "the bundle path is empty");  \
  if (size_t nul = var.find('\0'); nul != std::string_view::npos) {                                 \
    return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,                                              \
                absl::StrCat("the path holds a NUL byte (at byte ", nul, " of ", var.size(), ")")); \
  }

// An optional schema text: NULL (no schema) with a zero length, else text.
#define CHARTER_SCHEMA(var, p, n)                                                                 \
  std::optional<std::string_view> var;                                                            \
  if (p == nullptr && n != 0) {                                                                   \
    return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,                                            \
                "the schema is NULL with a nonzero length (pass NULL and 0 for no schema)");      \
  }                                                                                               \
  if (p != nullptr) var = std::string_view(p, n)

template <typename H>
void Free(H* h, uint64_t tag) {
  if (!Live(h, tag)) return;
  h->tag = kFreed;
  delete h;
}

absl::StatusOr<charter::Schema> ParseSchema(std::string_view text, std::string* detail) {
  charter::SourceFile source("schema", std::string(text));
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(source, {}, &diagnostics);
  if (!schema.ok()) *detail = diagnostics.Render(source);
  return schema;
}

charter_status Compile(std::string_view policies, const char* schema_text, size_t schema_length,
                       std::optional<charter::Bundle>* out, charter_error** error,
                       std::optional<charter::Schema>* kept = nullptr) {
  CHARTER_SCHEMA(schema_view, schema_text, schema_length);
  std::optional<charter::Schema> schema;
  if (schema_view.has_value()) {
    std::string detail;
    absl::StatusOr<charter::Schema> s = ParseSchema(*schema_view, &detail);
    if (!s.ok()) return FailStatus(error, s.status(), "schema", detail);
    schema.emplace(*std::move(s));
  }
  charter::SourceFile source("policies.cedar", std::string(policies));
  charter::Diagnostics diagnostics;
  charter::CompileOptions options;
  if (schema) options.schema = &*schema;
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, options, &diagnostics);
  if (!bundle.ok()) return FailDiagnostics(error, bundle.status(), diagnostics, source);
  out->emplace(*std::move(bundle));
  if (kept != nullptr) *kept = std::move(schema);
  return CHARTER_OK;
}

charter_status MakeEngine(absl::StatusOr<charter::Bundle> bundle, std::string_view source, charter_engine** out,
                          charter_error** error) {
  if (!bundle.ok()) return FailStatus(error, bundle.status(), source);
  absl::StatusOr<Engine> engine = Engine::Create(*std::move(bundle));
  if (!engine.ok()) return FailStatus(error, engine.status(), source);
  auto made = std::make_unique<charter_engine>(*std::move(engine));
  made->ids = made->value.policy_ids();
  for (size_t i = 0; i < made->ids.size(); ++i) made->index.emplace(made->ids[i], i);
  *out = made.release();
  return CHARTER_OK;
}

charter_status ReadEntities(std::string_view json, std::optional<charter::Schema> schema, charter_entities** out,
                            charter_error** error) {
  absl::StatusOr<charter::Entities> store =
      schema ? charter::Entities::FromJson(json, *schema, "entities.json") : charter::Entities::FromJson(json);
  if (!store.ok()) return FailStatus(error, store.status(), "entities.json");
  auto* e = new charter_entities();
  e->value.store = *std::move(store);
  e->value.fingerprint = schema ? schema->Fingerprint() : std::string();
  e->value.schema = std::move(schema);
  *out = e;
  return CHARTER_OK;
}

// Copies a string into memory the caller frees with charter_free.
char* CopyOut(std::string_view s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) throw std::bad_alloc();
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

const char* View(std::string_view s, size_t* length) {
  if (length != nullptr) *length = s.size();
  return s.data();
}

const charter::Entities& EmptyEntities() {
  // Immutable after construction (a function-local static, thread-safe).
  static const charter::Entities* empty = new charter::Entities();
  return *empty;
}

// The store a call with `entities` decides against: NULL is the engine's
// empty store (its schema's actions, for a typed engine from a _with call).
const charter::Entities& StoreOf(const charter_engine* engine, const charter_entities* entities) {
  if (entities != nullptr) return entities->value.store;
  return engine->empty != nullptr ? *engine->empty : EmptyEntities();
}

}  // namespace

extern "C" {

const char* charter_version(void) { return CHARTER_VERSION; }
int charter_c_api_version(void) { return CHARTER_C_API_VERSION; }

const char* charter_status_name(charter_status status) {
  switch (status) {
    case CHARTER_OK: return "ok";
    case CHARTER_ERROR_INVALID_ARGUMENT: return "invalid_argument";
    case CHARTER_ERROR_NOT_FOUND: return "not_found";
    case CHARTER_ERROR_PERMISSION_DENIED: return "permission_denied";
    case CHARTER_ERROR_LIMIT_EXCEEDED: return "limit_exceeded";
    case CHARTER_ERROR_NULL_HANDLE: return "null_handle";
    case CHARTER_ERROR_BAD_HANDLE: return "bad_handle";
    case CHARTER_ERROR_OUT_OF_MEMORY: return "out_of_memory";
    case CHARTER_ERROR_IO: return "io";
    case CHARTER_ERROR_INTERNAL: return "internal";
  }
  return "unknown";
}

// --- errors ----------------------------------------------------------------------

charter_status charter_error_status(const charter_error* e) {
  if (e == nullptr) return CHARTER_ERROR_NULL_HANDLE;
  if (!Live(e, kErrorTag)) return CHARTER_ERROR_BAD_HANDLE;
  return e->value.status;
}

const char* charter_error_message(const charter_error* e, size_t* length) {
  if (e == nullptr) return View("a NULL charter_error", length);
  if (!Live(e, kErrorTag)) return View("not a live charter_error", length);
  return View(e->value.message, length);
}

const char* charter_error_detail(const charter_error* e, size_t* length) {
  if (!Live(e, kErrorTag)) return charter_error_message(e, length);
  return View(e->value.detail, length);
}

const char* charter_error_source(const charter_error* e, size_t* length) {
  if (!Live(e, kErrorTag)) return View("", length);
  return View(e->value.source, length);
}

uint32_t charter_error_line(const charter_error* e) { return Live(e, kErrorTag) ? e->value.line : 0; }
uint32_t charter_error_column(const charter_error* e) { return Live(e, kErrorTag) ? e->value.column : 0; }
void charter_error_free(charter_error* e) { Free(e, kErrorTag); }

void charter_free(void* memory) { std::free(memory); }

// --- engines ---------------------------------------------------------------------

charter_status charter_engine_compile(const char* policies, size_t policies_length, const char* schema,
                                      size_t schema_length, charter_engine** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(text, policies, policies_length, "the policy text");
    std::optional<charter::Bundle> bundle;
    auto kept = std::make_shared<PolicyText>();
    charter_status s = Compile(text, schema, schema_length, &bundle, error, &kept->schema);
    if (s != CHARTER_OK) return s;
    kept->text = std::string(text);
    charter_engine* engine = nullptr;
    s = MakeEngine(*std::move(bundle), "policies.cedar", &engine, error);
    if (s != CHARTER_OK) return s;
    if (kept->schema.has_value()) engine->schema = std::make_shared<const charter::Schema>(*kept->schema);
    engine->text = std::move(kept);
    *out = engine;
    return CHARTER_OK;
  });
}

charter_status charter_engine_load_bundle(const char* path, size_t path_length, charter_engine** out,
                                          charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_PATH(p, path, path_length);
    std::string file(p);
    return MakeEngine(charter::Bundle::FromFile(file), file, out, error);
  });
}

charter_status charter_engine_from_bundle(const void* bytes, size_t length, charter_engine** out,
                                          charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(b, static_cast<const char*>(bytes), length, "the bundle");
    return MakeEngine(charter::Bundle::FromBytes(std::string(b)), "bundle", out, error);
  });
}

charter_status charter_compile_bundle(const char* policies, size_t policies_length, const char* schema,
                                      size_t schema_length, void** bytes, size_t* length, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (bytes == nullptr || length == nullptr) {
      return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`bytes` or `length` is NULL");
    }
    CHARTER_TEXT(text, policies, policies_length, "the policy text");
    std::optional<charter::Bundle> bundle;
    charter_status s = Compile(text, schema, schema_length, &bundle, error);
    if (s != CHARTER_OK) return s;
    std::string_view b = bundle->bytes();
    void* p = std::malloc(b.empty() ? 1 : b.size());
    if (p == nullptr) throw std::bad_alloc();
    if (!b.empty()) std::memcpy(p, b.data(), b.size());
    *bytes = p;
    *length = b.size();
    return CHARTER_OK;
  });
}

size_t charter_engine_policy_count(const charter_engine* engine) {
  return Live(engine, kEngineTag) ? engine->value.policy_count() : 0;
}

void charter_engine_free(charter_engine* engine) { Free(engine, kEngineTag); }

// --- entities --------------------------------------------------------------------

charter_status charter_entities_from_json(const char* json, size_t json_length, const char* schema,
                                          size_t schema_length, charter_entities** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(text, json, json_length, "the entities' JSON");
    CHARTER_SCHEMA(schema_view, schema, schema_length);
    std::optional<charter::Schema> parsed;
    if (schema_view.has_value()) {
      std::string detail;
      absl::StatusOr<charter::Schema> s = ParseSchema(*schema_view, &detail);
      if (!s.ok()) return FailStatus(error, s.status(), "schema", detail);
      parsed.emplace(*std::move(s));
    }
    return ReadEntities(text, std::move(parsed), out, error);
  });
}

charter_status charter_entities_extend(const charter_entities* base, const char* json, size_t json_length,
                                       charter_entities** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(base, kEntitiesTag, "charter_entities");
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(text, json, json_length, "the entities' JSON");
    // The new entities are laid over base's store, which is neither copied
    // nor read again (charter::Entities::Extend); with base's schema.
    const EntitiesData& from = base->value;
    absl::StatusOr<charter::Entities> store = from.schema ? from.store.Extend(text, *from.schema, "entities.json")
                                                          : from.store.Extend(text, "entities.json");
    if (!store.ok()) return FailStatus(error, store.status(), "entities.json");
    auto e = std::make_unique<charter_entities>();
    e->value.store = *std::move(store);
    e->value.schema = from.schema;
    e->value.fingerprint = from.fingerprint;
    *out = e.release();
    return CHARTER_OK;
  });
}

size_t charter_entities_size(const charter_entities* entities) {
  return Live(entities, kEntitiesTag) ? entities->value.store.size() : 0;
}

void charter_entities_free(charter_entities* entities) { Free(entities, kEntitiesTag); }

// --- requests --------------------------------------------------------------------

namespace {

charter_status MakeRequest(EntityUid p, EntityUid a, EntityUid r, std::string_view context, charter_request** out,
                           charter_error** error) {
  absl::StatusOr<charter::Request> request =
      charter::Request::Create(std::move(p), std::move(a), std::move(r), context);
  if (!request.ok()) return FailStatus(error, request.status(), "context.json");
  *out = new charter_request(*std::move(request));
  return CHARTER_OK;
}

// The three parts of a request as the caller gave them: each not NULL, its
// type and id valid text, its type not empty.
charter_status UidsOf(const charter_uid* const in[3], EntityUid uids[3], charter_error** error) {
  static const char* const names[3] = {"principal", "action", "resource"};
  for (int i = 0; i < 3; ++i) {
    if (in[i] == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, std::string("the ") + names[i] + " is NULL");
    std::string_view type, id;
    if (!Text(in[i]->type, in[i]->type_length, &type) || !Text(in[i]->id, in[i]->id_length, &id)) {
      return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,
                  std::string("the ") + names[i] + "'s type or id is NULL with a nonzero length");
    }
    if (type.empty()) {
      return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, std::string("the ") + names[i] + "'s type is empty");
    }
    uids[i] = EntityUid{std::string(type), std::string(id)};
  }
  return CHARTER_OK;
}

}  // namespace

charter_status charter_request_new(const char* principal, size_t principal_length, const char* action,
                                   size_t action_length, const char* resource, size_t resource_length,
                                   const char* context_json, size_t context_length, charter_request** out,
                                   charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(p, principal, principal_length, "the principal");
    CHARTER_TEXT(a, action, action_length, "the action");
    CHARTER_TEXT(r, resource, resource_length, "the resource");
    CHARTER_TEXT(c, context_json, context_length, "the context");
    EntityUid uids[3];
    const std::string_view texts[3] = {p, a, r};
    const char* names[3] = {"principal", "action", "resource"};
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<EntityUid> uid = EntityUid::Parse(texts[i]);
      if (!uid.ok()) {
        return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,
                    std::string("the ") + names[i] + " `" + std::string(texts[i]) +
                        "` is not an entity reference `Type::\"id\"`: " + std::string(uid.status().message()));
      }
      uids[i] = *std::move(uid);
    }
    return MakeRequest(std::move(uids[0]), std::move(uids[1]), std::move(uids[2]), c, out, error);
  });
}

charter_status charter_request_new_uids(const charter_uid* principal, const charter_uid* action,
                                        const charter_uid* resource, const char* context_json, size_t context_length,
                                        charter_request** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    const charter_uid* in[3] = {principal, action, resource};
    EntityUid uids[3];
    if (charter_status s = UidsOf(in, uids, error); s != CHARTER_OK) return s;
    CHARTER_TEXT(c, context_json, context_length, "the context");
    return MakeRequest(std::move(uids[0]), std::move(uids[1]), std::move(uids[2]), c, out, error);
  });
}

charter_status charter_request_from_json(const char* json, size_t json_length, charter_request** out,
                                         charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(text, json, json_length, "the request's JSON");
    absl::StatusOr<charter::Request> request = charter::Request::FromJson(text);
    if (!request.ok()) return FailStatus(error, request.status(), "request.json");
    *out = new charter_request(*std::move(request));
    return CHARTER_OK;
  });
}

void charter_request_free(charter_request* request) { Free(request, kRequestTag); }

// --- deciding ---------------------------------------------------------------------

charter_status charter_eval_context_new(charter_eval_context** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    *out = new charter_eval_context();
    return CHARTER_OK;
  });
}

void charter_eval_context_free(charter_eval_context* context) { Free(context, kContextTag); }

charter_status charter_authorize(const charter_engine* engine, const charter_entities* entities,
                                 const charter_request* request, charter_eval_context* context,
                                 charter_error** error) {
  // The common case first: every handle live, checked inline (the slow
  // path below says which one is not).
  if (Live(engine, kEngineTag) && Live(request, kRequestTag) && Live(context, kContextTag) &&
      (entities == nullptr || Live(entities, kEntitiesTag))) [[likely]] {
    return Guard(error, [&]() -> charter_status {
      engine->value.Authorize(request->value,
                              entities != nullptr ? entities->value.store
                              : engine->empty != nullptr ? *engine->empty
                                                         : EmptyEntities(),
                              &context->value);
      return CHARTER_OK;
    });
  }
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    CHARTER_CHECK_HANDLE(request, kRequestTag, "charter_request");
    CHARTER_CHECK_HANDLE(context, kContextTag, "charter_eval_context");
    CHARTER_CHECK_HANDLE(entities, kEntitiesTag, "charter_entities");
    return Fail(error, CHARTER_ERROR_INTERNAL, "a handle check disagreed with itself");
  });
}

int charter_eval_context_allowed(const charter_eval_context* context) {
  return Live(context, kContextTag) && context->value.allowed() ? 1 : 0;
}

size_t charter_eval_context_reason_count(const charter_eval_context* context) {
  return Live(context, kContextTag) ? context->value.reasons().size() : 0;
}

const char* charter_eval_context_reason(const charter_eval_context* context, size_t index, size_t* length) {
  if (!Live(context, kContextTag) || index >= context->value.reasons().size()) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  return View(context->value.reasons()[index], length);
}

size_t charter_eval_context_error_count(const charter_eval_context* context) {
  return Live(context, kContextTag) ? context->value.errors().size() : 0;
}

const char* charter_eval_context_error_policy(const charter_eval_context* context, size_t index, size_t* length) {
  if (!Live(context, kContextTag) || index >= context->value.errors().size()) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  return View(context->value.errors()[index].policy_id, length);
}

const char* charter_eval_context_error_message(const charter_eval_context* context, size_t index, size_t* length) {
  if (!Live(context, kContextTag) || index >= context->value.errors().size()) {
    if (length != nullptr) *length = 0;
    return nullptr;
  }
  return View(context->value.errors()[index].message, length);
}

charter_status charter_eval_context_decision_json(const charter_eval_context* context, char** json, size_t* length,
                                                  charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(context, kContextTag, "charter_eval_context");
    if (json == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`json` is NULL");
    std::string text = context->value.ToDecision().ToJson();
    *json = CopyOut(text);
    if (length != nullptr) *length = text.size();
    return CHARTER_OK;
  });
}

// --- engine handles ------------------------------------------------------------------

charter_status charter_engine_handle_new(const charter_engine* engine, charter_engine_handle** out,
                                         charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    *out = new charter_engine_handle(engine->value);
    return CHARTER_OK;
  });
}

charter_status charter_engine_handle_swap(charter_engine_handle* handle, const charter_engine* engine,
                                          charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(handle, kHandleTag, "charter_engine_handle");
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    handle->value.Swap(engine->value);
    return CHARTER_OK;
  });
}

charter_status charter_engine_handle_swap_bundle(charter_engine_handle* handle, const char* path,
                                                 size_t path_length, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(handle, kHandleTag, "charter_engine_handle");
    CHARTER_PATH(p, path, path_length);
    std::string file(p);
    absl::StatusOr<charter::Bundle> bundle = charter::Bundle::FromFile(file);
    if (!bundle.ok()) return FailStatus(error, bundle.status(), file);
    absl::Status s = handle->value.SwapBundle(*std::move(bundle));
    if (!s.ok()) return FailStatus(error, s, file);
    return CHARTER_OK;
  });
}

uint64_t charter_engine_handle_generation(const charter_engine_handle* handle) {
  return Live(handle, kHandleTag) ? handle->value.generation() : 0;
}

charter_status charter_engine_handle_authorize(const charter_engine_handle* handle, const charter_entities* entities,
                                               const charter_request* request, charter_eval_context* context,
                                               charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(handle, kHandleTag, "charter_engine_handle");
    CHARTER_CHECK_HANDLE(request, kRequestTag, "charter_request");
    CHARTER_CHECK_HANDLE(context, kContextTag, "charter_eval_context");
    if (entities != nullptr) CHARTER_CHECK_HANDLE(entities, kEntitiesTag, "charter_entities");
    handle->value.Authorize(request->value, entities != nullptr ? entities->value.store : EmptyEntities(),
                            &context->value);
    return CHARTER_OK;
  });
}

void charter_engine_handle_free(charter_engine_handle* handle) { Free(handle, kHandleTag); }

// --- queries ------------------------------------------------------------------------

namespace {

// Reads a uid argument of a query, `Type::"id"`, naming the role in the error.
charter_status QueryUid(std::string_view text, const char* role, EntityUid* out, charter_error** error) {
  absl::StatusOr<EntityUid> uid = EntityUid::Parse(text);
  if (!uid.ok()) {
    return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,
                std::string("the ") + role + " `" + std::string(text) + "` is not an entity reference `Type::\"id\"`: " +
                    std::string(uid.status().message()));
  }
  *out = *std::move(uid);
  return CHARTER_OK;
}

charter_status QueryFromUids(const charter_engine* engine, bool resource_unknown, EntityUid known_uid,
                             EntityUid action_uid, std::string_view type, std::string_view context,
                             std::string_view source, charter_query** out, charter_error** error) {
  const charter::Schema* schema = engine->schema.get();
  absl::StatusOr<charter::QueryRequest> query =
      resource_unknown ? charter::QueryRequest::ForResources(std::move(known_uid), std::move(action_uid),
                                                             std::string(type), context, schema, source)
                       : charter::QueryRequest::ForPrincipals(std::string(type), std::move(action_uid),
                                                              std::move(known_uid), context, schema, source);
  if (!query.ok()) return FailStatus(error, query.status(), source);
  *out = new charter_query(*std::move(query));
  return CHARTER_OK;
}

charter_status MakeQuery(const charter_engine* engine, bool resource_unknown, std::string_view known,
                         std::string_view action, std::string_view type, std::string_view context,
                         charter_query** out, charter_error** error) {
  EntityUid known_uid, action_uid;
  charter_status s = QueryUid(known, resource_unknown ? "principal" : "resource", &known_uid, error);
  if (s != CHARTER_OK) return s;
  s = QueryUid(action, "action", &action_uid, error);
  if (s != CHARTER_OK) return s;
  return QueryFromUids(engine, resource_unknown, std::move(known_uid), std::move(action_uid), type, context,
                       "context.json", out, error);
}

// A match's reasons and errors, from whichever it views.
size_t ReasonCount(const MatchData& m) { return m.view != nullptr ? m.view->reasons.size() : m.owned->reasons.size(); }
std::string_view ReasonAt(const MatchData& m, size_t i) {
  return m.view != nullptr ? m.view->reasons[i] : std::string_view(m.owned->reasons[i]);
}
size_t ErrorCount(const MatchData& m) { return m.view != nullptr ? m.view->errors.size() : m.owned->errors.size(); }
std::string_view ErrorPolicyAt(const MatchData& m, size_t i) {
  return m.view != nullptr ? m.view->errors[i].policy_id : std::string_view(m.owned->errors[i].policy_id);
}
std::string_view ErrorMessageAt(const MatchData& m, size_t i) {
  return m.view != nullptr ? m.view->errors[i].message : std::string_view(m.owned->errors[i].message);
}

bool LiveMatch(const charter_match* m) {
  return Live(m, kMatchTag) && (m->value.view != nullptr || m->value.owned != nullptr);
}

const char* Missing(size_t* length) {
  if (length != nullptr) *length = 0;
  return nullptr;
}

}  // namespace

charter_status charter_query_resources(const charter_engine* engine, const char* principal, size_t principal_length,
                                       const char* action, size_t action_length, const char* resource_type,
                                       size_t resource_type_length, const char* context_json, size_t context_length,
                                       charter_query** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(p, principal, principal_length, "the principal");
    CHARTER_TEXT(a, action, action_length, "the action");
    CHARTER_TEXT(t, resource_type, resource_type_length, "the resource type");
    CHARTER_TEXT(c, context_json, context_length, "the context");
    return MakeQuery(engine, true, p, a, t, c, out, error);
  });
}

charter_status charter_query_principals(const charter_engine* engine, const char* principal_type,
                                        size_t principal_type_length, const char* action, size_t action_length,
                                        const char* resource, size_t resource_length, const char* context_json,
                                        size_t context_length, charter_query** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(t, principal_type, principal_type_length, "the principal type");
    CHARTER_TEXT(a, action, action_length, "the action");
    CHARTER_TEXT(r, resource, resource_length, "the resource");
    CHARTER_TEXT(c, context_json, context_length, "the context");
    return MakeQuery(engine, false, r, a, t, c, out, error);
  });
}

void charter_query_free(charter_query* query) { Free(query, kQueryTag); }

const char* charter_match_type(const charter_match* m, size_t* length) {
  if (!LiveMatch(m)) return Missing(length);
  return View(m->value.view != nullptr ? m->value.view->type : std::string_view(m->value.owned->uid.type), length);
}

const char* charter_match_id(const charter_match* m, size_t* length) {
  if (!LiveMatch(m)) return Missing(length);
  return View(m->value.view != nullptr ? m->value.view->id : std::string_view(m->value.owned->uid.id), length);
}

size_t charter_match_reason_count(const charter_match* m) { return LiveMatch(m) ? ReasonCount(m->value) : 0; }

const char* charter_match_reason(const charter_match* m, size_t index, size_t* length) {
  if (!LiveMatch(m) || index >= ReasonCount(m->value)) return Missing(length);
  return View(ReasonAt(m->value, index), length);
}

size_t charter_match_error_count(const charter_match* m) { return LiveMatch(m) ? ErrorCount(m->value) : 0; }

const char* charter_match_error_policy(const charter_match* m, size_t index, size_t* length) {
  if (!LiveMatch(m) || index >= ErrorCount(m->value)) return Missing(length);
  return View(ErrorPolicyAt(m->value, index), length);
}

const char* charter_match_error_message(const charter_match* m, size_t index, size_t* length) {
  if (!LiveMatch(m) || index >= ErrorCount(m->value)) return Missing(length);
  return View(ErrorMessageAt(m->value, index), length);
}

charter_status charter_list_allowed(const charter_engine* engine, const charter_entities* entities,
                                    const charter_query* query, charter_eval_context* context,
                                    charter_match_callback callback, void* user_data, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    CHARTER_CHECK_HANDLE(query, kQueryTag, "charter_query");
    if (entities != nullptr) CHARTER_CHECK_HANDLE(entities, kEntitiesTag, "charter_entities");
    if (context != nullptr) CHARTER_CHECK_HANDLE(context, kContextTag, "charter_eval_context");
    if (callback == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`callback` is NULL");
    charter_match match;
    absl::Status s = charter::ForEachAllowed(
        engine->value, query->value, StoreOf(engine, entities),
        [&](const charter::QueryMatchView& m) {
          match.value.view = &m;
          return callback(&match, user_data) == 0;
        },
        context != nullptr ? &context->value : nullptr);
    match.tag = kFreed;  // a match kept past the call is refused, not read
    if (!s.ok()) return FailStatus(error, s);
    return CHARTER_OK;
  });
}

charter_status charter_list_allowed_page(const charter_engine* engine, const charter_entities* entities,
                                         const charter_query* query, size_t start, size_t limit,
                                         charter_match_page** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    CHARTER_CHECK_HANDLE(query, kQueryTag, "charter_query");
    if (entities != nullptr) CHARTER_CHECK_HANDLE(entities, kEntitiesTag, "charter_entities");
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    if (limit == 0) return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "the page size (`limit`) is 0");
    charter::ListOptions options;
    options.start = start;
    options.limit = limit;
    absl::StatusOr<charter::ListPage> page = charter::ListAllowed(
        engine->value, query->value, StoreOf(engine, entities), options);
    if (!page.ok()) return FailStatus(error, page.status());
    auto result = std::make_unique<charter_match_page>();
    result->value.page = *std::move(page);
    size_t n = result->value.page.matches.size();
    result->value.matches = std::make_unique<charter_match[]>(n);
    for (size_t i = 0; i < n; ++i) result->value.matches[i].value.owned = &result->value.page.matches[i];
    *out = result.release();
    return CHARTER_OK;
  });
}

size_t charter_match_page_count(const charter_match_page* page) {
  return Live(page, kPageTag) ? page->value.page.matches.size() : 0;
}

const charter_match* charter_match_page_at(const charter_match_page* page, size_t index) {
  if (!Live(page, kPageTag) || index >= page->value.page.matches.size()) return nullptr;
  return &page->value.matches[index];
}

size_t charter_match_page_next(const charter_match_page* page) {
  return Live(page, kPageTag) ? page->value.page.next : 0;
}

void charter_match_page_free(charter_match_page* page) {
  if (!Live(page, kPageTag)) return;
  for (size_t i = 0; i < page->value.page.matches.size(); ++i) page->value.matches[i].tag = kFreed;
  Free(page, kPageTag);
}

// --- residuals ------------------------------------------------------------------------

charter_status charter_residual_new(const charter_engine* engine, const charter_entities* entities,
                                    const charter_query* query, charter_residual** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    CHARTER_CHECK_HANDLE(query, kQueryTag, "charter_query");
    if (entities != nullptr) CHARTER_CHECK_HANDLE(entities, kEntitiesTag, "charter_entities");
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    PolicyText* text = engine->text.get();
    if (text == nullptr) {
      return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,
                  "a residual needs the policy text: this engine was loaded from a bundle, which holds compiled "
                  "code only (compile the text with charter_engine_compile)");
    }
    // As `charter query --residual` does, without the schema: the engine's
    // compile has validated the text already.
    std::call_once(text->once, [text] {
      text->evaluator =
          charter::PartialEvaluator::Create(charter::SourceFile(text->source_name, text->text), text->links);
    });
    if (!text->evaluator.ok()) return FailStatus(error, text->evaluator.status(), text->source_name);
    absl::StatusOr<charter::Residual> residual = text->evaluator->Evaluate(
        query->value, StoreOf(engine, entities));
    if (!residual.ok()) return FailStatus(error, residual.status());
    auto result = std::make_unique<charter_residual>(*std::move(residual));
    result->text = result->value.ToText();
    result->json = result->value.ToJson();
    *out = result.release();
    return CHARTER_OK;
  });
}

charter_residual_outcome charter_residual_get_outcome(const charter_residual* r) {
  if (!Live(r, kResidualTag)) return CHARTER_RESIDUAL_DENY;
  switch (r->value.outcome()) {
    case charter::Residual::Outcome::kAllow: return CHARTER_RESIDUAL_ALLOW;
    case charter::Residual::Outcome::kDeny: return CHARTER_RESIDUAL_DENY;
    case charter::Residual::Outcome::kDepends: return CHARTER_RESIDUAL_DEPENDS;
  }
  return CHARTER_RESIDUAL_DENY;
}

int charter_residual_exact(const charter_residual* r) { return Live(r, kResidualTag) && r->value.exact() ? 1 : 0; }

const char* charter_residual_condition(const charter_residual* r, size_t* length) {
  return Live(r, kResidualTag) ? View(r->value.condition(), length) : Missing(length);
}

const char* charter_residual_condition_json(const charter_residual* r, size_t* length) {
  return Live(r, kResidualTag) ? View(r->value.condition_json(), length) : Missing(length);
}

const char* charter_residual_json(const charter_residual* r, size_t* length) {
  return Live(r, kResidualTag) ? View(r->json, length) : Missing(length);
}

const char* charter_residual_text(const charter_residual* r, size_t* length) {
  return Live(r, kResidualTag) ? View(r->text, length) : Missing(length);
}

const char* charter_residual_label_selector(const charter_residual* r, size_t* length) {
  if (!Live(r, kResidualTag) || !r->value.label_selector().has_value()) return Missing(length);
  return View(*r->value.label_selector(), length);
}

void charter_residual_free(charter_residual* r) { Free(r, kResidualTag); }

// --- scheduling ---------------------------------------------------------------------

charter_status charter_schedule_cycle(const char* state_json, size_t state_length, int hyperpod, char** result,
                                      size_t* result_length, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (result == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`result` is NULL");
    CHARTER_TEXT(text, state_json, state_length, "the state's JSON");
    charter::schedule::LoadOptions options;
    options.source_name = "state.json";
    absl::StatusOr<charter::schedule::State> state =
        hyperpod ? charter::schedule::LoadHyperPodState(text, options) : charter::schedule::LoadState(text, options);
    if (!state.ok()) return FailStatus(error, state.status(), "state.json");
    absl::StatusOr<charter::schedule::CycleResult> cycle = charter::schedule::RunCycle(*state);
    if (!cycle.ok()) return FailStatus(error, cycle.status(), "state.json");
    std::string out = cycle->ToJson();
    *result = CopyOut(out);
    if (result_length != nullptr) *result_length = out.size();
    return CHARTER_OK;
  });
}

// --- version 3 ---------------------------------------------------------------------

const char* charter_error_code(const charter_error* e, size_t* length) {
  if (!Live(e, kErrorTag)) return View("", length);
  return View(e->value.code, length);
}

size_t charter_error_diagnostic_count(const charter_error* e) {
  return Live(e, kErrorTag) ? e->value.diagnostics.size() : 0;
}

int charter_error_diagnostic(const charter_error* e, size_t index, charter_diagnostic* out) {
  if (!Live(e, kErrorTag) || out == nullptr || index >= e->value.diagnostics.size()) return 0;
  FillDiagnostic(e->value.diagnostics[index], out);
  return 1;
}

namespace {

// An optional name argument: NULL or empty gives `fallback`.
std::string_view NameOr(const char* p, size_t n, std::string_view fallback) {
  return p == nullptr || n == 0 ? fallback : std::string_view(p, n);
}

bool LiveSchema(const charter_schema* s) { return Live(s, kSchemaTag); }

std::string SchemaFingerprint(const charter_schema* s) { return s == nullptr ? std::string() : s->value.fingerprint; }

// The store of a typed engine's NULL entities: its schema's actions.
charter_status TypedEngine(charter_engine* engine, const charter_schema* schema, charter_error** error) {
  if (schema == nullptr) return CHARTER_OK;
  engine->schema = std::make_shared<const charter::Schema>(schema->value.schema);
  absl::StatusOr<charter::Entities> actions = charter::Entities::FromJson("[]", *engine->schema, "entities.json");
  if (!actions.ok()) return FailStatus(error, actions.status(), "schema");
  engine->empty = std::make_shared<const charter::Entities>(*std::move(actions));
  return CHARTER_OK;
}

struct CompiledText {
  std::optional<charter::Bundle> bundle;
  std::shared_ptr<PolicyText> text = std::make_shared<PolicyText>();
  std::vector<DiagnosticData> warnings;
};

charter_status CompileWith(std::string_view policies, const charter_compile_options* options, CompiledText* out,
                           charter_error** error) {
  charter_compile_options none{};
  if (options == nullptr) options = &none;
  if (options->schema != nullptr && !LiveSchema(options->schema)) {
    return CheckHandle(options->schema, kSchemaTag, "charter_schema", error);
  }
  CHARTER_TEXT(links_text, options->links_json, options->links_json_length, "the template links");
  CHARTER_TEXT(name, options->source_name, options->source_name_length, "the source name");
  if (name.empty()) name = "policies.cedar";
  std::vector<charter::TemplateLink> links;
  if (options->links_json != nullptr) {
    absl::StatusOr<std::vector<charter::TemplateLink>> parsed = charter::ParseTemplateLinks(links_text, "links.json");
    if (!parsed.ok()) return FailStatus(error, parsed.status(), "links.json");
    links = *std::move(parsed);
  }
  charter::SourceFile source{std::string(name), std::string(policies)};
  charter::CompileOptions compile;
  if (options->schema != nullptr) compile.schema = &options->schema->value.schema;
  charter::Diagnostics diagnostics;
  absl::StatusOr<charter::Bundle> bundle = charter::Compile(source, links, compile, &diagnostics);
  if (!bundle.ok()) return FailDiagnostics(error, bundle.status(), diagnostics, source);
  for (DiagnosticData& d : DiagnosticList(diagnostics, source)) {
    if (d.severity == CHARTER_SEVERITY_WARNING) out->warnings.push_back(std::move(d));
  }
  out->bundle.emplace(*std::move(bundle));
  out->text->text = std::string(policies);
  out->text->source_name = std::string(name);
  out->text->links = std::move(links);
  if (options->schema != nullptr) out->text->schema = options->schema->value.schema;
  return CHARTER_OK;
}

// An engine from a bundle, which must have been compiled with `schema`.
charter_status BundleEngine(absl::StatusOr<charter::Bundle> bundle, std::string_view name,
                            const charter_schema* schema, charter_engine** out, charter_error** error) {
  if (schema != nullptr) CHARTER_CHECK_HANDLE(schema, kSchemaTag, "charter_schema");
  charter_engine* made = nullptr;
  charter_status s = MakeEngine(std::move(bundle), name, &made, error);
  if (s != CHARTER_OK) return s;
  std::unique_ptr<charter_engine> engine(made);
  const std::string_view fingerprint = engine->value.schema_fingerprint();
  const std::string want = SchemaFingerprint(schema);
  if (fingerprint != want) {
    return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,
                absl::StrCat(std::string(name), ": the bundle was compiled ",
                             fingerprint.empty() ? std::string("without a schema")
                                                 : absl::StrCat("with the schema ", std::string(fingerprint)),
                             want.empty() ? std::string(", and no schema was given")
                                          : absl::StrCat(", not with the one given (", want, ")")));
  }
  s = TypedEngine(engine.get(), schema, error);
  if (s != CHARTER_OK) return s;
  *out = engine.release();
  return CHARTER_OK;
}

const charter::EntityUid& RequestPart(const charter::Request& r, int part) {
  return part == 0 ? r.principal() : part == 1 ? r.action() : r.resource();
}

}  // namespace

charter_status charter_schema_parse(const char* text, size_t text_length, const char* source_name,
                                    size_t source_name_length, charter_schema** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(t, text, text_length, "the schema");
    const size_t first = t.find_first_not_of(" \t\r\n");
    const bool json = first != std::string_view::npos && t[first] == '{';
    std::string_view name =
        NameOr(source_name, source_name_length, json ? "schema.json" : "schema.cedarschema");
    charter::SourceFile source{std::string(name), std::string(t)};
    charter::Diagnostics diagnostics;
    absl::StatusOr<charter::Schema> schema = charter::Schema::Parse(source, {}, &diagnostics);
    if (!schema.ok()) return FailDiagnostics(error, schema.status(), diagnostics, source);
    auto made = std::make_unique<charter_schema>(*std::move(schema));
    SchemaData& d = made->value;
    d.json = d.schema.ToJson();
    d.cedar = d.schema.ToCedar();
    d.fingerprint = d.schema.Fingerprint();
    d.entity_types = d.schema.EntityTypes();
    for (const EntityUid& a : d.schema.Actions()) d.actions.push_back(a.ToString());
    *out = made.release();
    return CHARTER_OK;
  });
}

const char* charter_schema_json(const charter_schema* s, size_t* length) {
  return LiveSchema(s) ? View(s->value.json, length) : Missing(length);
}
const char* charter_schema_cedar(const charter_schema* s, size_t* length) {
  return LiveSchema(s) ? View(s->value.cedar, length) : Missing(length);
}
const char* charter_schema_fingerprint(const charter_schema* s, size_t* length) {
  return LiveSchema(s) ? View(s->value.fingerprint, length) : Missing(length);
}
size_t charter_schema_entity_type_count(const charter_schema* s) {
  return LiveSchema(s) ? s->value.entity_types.size() : 0;
}
const char* charter_schema_entity_type(const charter_schema* s, size_t index, size_t* length) {
  if (!LiveSchema(s) || index >= s->value.entity_types.size()) return Missing(length);
  return View(s->value.entity_types[index], length);
}
size_t charter_schema_action_count(const charter_schema* s) { return LiveSchema(s) ? s->value.actions.size() : 0; }
const char* charter_schema_action(const charter_schema* s, size_t index, size_t* length) {
  if (!LiveSchema(s) || index >= s->value.actions.size()) return Missing(length);
  return View(s->value.actions[index], length);
}
void charter_schema_free(charter_schema* s) { Free(s, kSchemaTag); }

charter_status charter_engine_compile_with(const char* policies, size_t policies_length,
                                           const charter_compile_options* options, charter_engine** out,
                                           charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(text, policies, policies_length, "the policy text");
    CompiledText compiled;
    charter_status s = CompileWith(text, options, &compiled, error);
    if (s != CHARTER_OK) return s;
    charter_engine* made = nullptr;
    s = MakeEngine(*std::move(compiled.bundle), compiled.text->source_name, &made, error);
    if (s != CHARTER_OK) return s;
    std::unique_ptr<charter_engine> engine(made);
    s = TypedEngine(engine.get(), options != nullptr ? options->schema : nullptr, error);
    if (s != CHARTER_OK) return s;
    engine->warnings = std::move(compiled.warnings);
    engine->text = std::move(compiled.text);
    *out = engine.release();
    return CHARTER_OK;
  });
}

charter_status charter_compile_bundle_with(const char* policies, size_t policies_length,
                                           const charter_compile_options* options, void** bytes, size_t* length,
                                           charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (bytes == nullptr || length == nullptr) {
      return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`bytes` or `length` is NULL");
    }
    CHARTER_TEXT(text, policies, policies_length, "the policy text");
    CompiledText compiled;
    charter_status s = CompileWith(text, options, &compiled, error);
    if (s != CHARTER_OK) return s;
    std::string_view b = compiled.bundle->bytes();
    void* p = std::malloc(b.empty() ? 1 : b.size());
    if (p == nullptr) throw std::bad_alloc();
    if (!b.empty()) std::memcpy(p, b.data(), b.size());
    *bytes = p;
    *length = b.size();
    return CHARTER_OK;
  });
}

charter_status charter_engine_from_bundle_with(const void* bytes, size_t length, const charter_schema* schema,
                                               charter_engine** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(b, static_cast<const char*>(bytes), length, "the bundle");
    return BundleEngine(charter::Bundle::FromBytes(std::string(b)), "bundle", schema, out, error);
  });
}

charter_status charter_engine_load_bundle_with(const char* path, size_t path_length, const charter_schema* schema,
                                               charter_engine** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_PATH(p, path, path_length);
    std::string file(p);
    return BundleEngine(charter::Bundle::FromFile(file), file, schema, out, error);
  });
}

const char* charter_engine_policy_id(const charter_engine* engine, size_t index, size_t* length) {
  if (!Live(engine, kEngineTag) || index >= engine->ids.size()) return Missing(length);
  return View(engine->ids[index], length);
}

size_t charter_engine_policy_index(const charter_engine* engine, const char* id, size_t id_length) {
  if (!Live(engine, kEngineTag) || (id == nullptr && id_length != 0)) return SIZE_MAX;
  auto it = engine->index.find(std::string_view(id == nullptr ? "" : id, id_length));
  return it == engine->index.end() ? SIZE_MAX : it->second;
}

const char* charter_engine_schema_fingerprint(const charter_engine* engine, size_t* length) {
  if (!Live(engine, kEngineTag)) return View("", length);
  return View(engine->value.schema_fingerprint(), length);
}

size_t charter_engine_warning_count(const charter_engine* engine) {
  return Live(engine, kEngineTag) ? engine->warnings.size() : 0;
}

int charter_engine_warning(const charter_engine* engine, size_t index, charter_diagnostic* out) {
  if (!Live(engine, kEngineTag) || out == nullptr || index >= engine->warnings.size()) return 0;
  FillDiagnostic(engine->warnings[index], out);
  return 1;
}

charter_status charter_entities_from_json_with(const char* json, size_t json_length, const charter_schema* schema,
                                               const char* source_name, size_t source_name_length,
                                               charter_entities** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    if (schema != nullptr) CHARTER_CHECK_HANDLE(schema, kSchemaTag, "charter_schema");
    CHARTER_TEXT(text, json, json_length, "the entities' JSON");
    std::string_view name = NameOr(source_name, source_name_length, "entities.json");
    absl::StatusOr<charter::Entities> store =
        schema != nullptr ? charter::Entities::FromJson(text, schema->value.schema, name)
                          : charter::Entities::FromJson(text, name);
    if (!store.ok()) return FailStatus(error, store.status(), name);
    auto e = std::make_unique<charter_entities>();
    e->value.store = *std::move(store);
    if (schema != nullptr) e->value.schema = schema->value.schema;
    e->value.fingerprint = SchemaFingerprint(schema);
    *out = e.release();
    return CHARTER_OK;
  });
}

int charter_entities_uid(const charter_entities* entities, size_t index, charter_uid* out) {
  if (!Live(entities, kEntitiesTag) || out == nullptr) return 0;
  auto* e = const_cast<charter_entities*>(entities);  // the uids are made once, under uids_once
  try {
    std::call_once(e->uids_once, [e] { e->uids = e->value.store.Uids(); });
  } catch (...) {
    return 0;
  }
  if (index >= e->uids.size()) return 0;
  const EntityUid& u = e->uids[index];
  *out = charter_uid{u.type.data(), u.type.size(), u.id.data(), u.id.size()};
  return 1;
}

int charter_entities_contains(const charter_entities* entities, const charter_uid* uid) {
  if (!Live(entities, kEntitiesTag) || uid == nullptr) return 0;
  std::string_view type, id;
  if (!Text(uid->type, uid->type_length, &type) || !Text(uid->id, uid->id_length, &id)) return 0;
  try {
    return entities->value.store.Find(EntityUid{std::string(type), std::string(id)}).has_value() ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

const char* charter_entities_schema_fingerprint(const charter_entities* entities, size_t* length) {
  if (!Live(entities, kEntitiesTag)) return View("", length);
  return View(entities->value.fingerprint, length);
}

charter_status charter_uid_parse(const char* text, size_t text_length, char* buffer, size_t capacity,
                                 charter_uid* out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    CHARTER_TEXT(t, text, text_length, "the entity reference");
    absl::StatusOr<EntityUid> uid = EntityUid::Parse(t);
    if (!uid.ok()) return FailStatus(error, uid.status());
    const size_t need = uid->type.size() + uid->id.size();
    if (need > capacity || (buffer == nullptr && need != 0)) {
      return Fail(error, CHARTER_ERROR_LIMIT_EXCEEDED,
                  absl::StrCat("the buffer holds ", capacity, " bytes; the uid needs ", need));
    }
    if (!uid->type.empty()) std::memcpy(buffer, uid->type.data(), uid->type.size());
    if (!uid->id.empty()) std::memcpy(buffer + uid->type.size(), uid->id.data(), uid->id.size());
    *out = charter_uid{buffer, uid->type.size(), buffer + uid->type.size(), uid->id.size()};
    return CHARTER_OK;
  });
}

charter_status charter_uid_format(const charter_uid* uid, char** text, size_t* length, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (uid == nullptr || text == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`uid` or `text` is NULL");
    std::string_view type, id;
    if (!Text(uid->type, uid->type_length, &type) || !Text(uid->id, uid->id_length, &id)) {
      return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "the uid's type or id is NULL with a nonzero length");
    }
    std::string out = EntityUid{std::string(type), std::string(id)}.ToString();
    // The type must read back as the parser reads one.
    absl::StatusOr<EntityUid> back = EntityUid::Parse(out);
    if (!back.ok()) return FailStatus(error, back.status());
    *text = CopyOut(out);
    if (length != nullptr) *length = out.size();
    return CHARTER_OK;
  });
}

charter_status charter_request_new_with(const charter_uid* principal, const charter_uid* action,
                                        const charter_uid* resource, const char* context_json, size_t context_length,
                                        const charter_schema* schema, const char* source_name,
                                        size_t source_name_length, charter_request** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    if (schema != nullptr) CHARTER_CHECK_HANDLE(schema, kSchemaTag, "charter_schema");
    const charter_uid* in[3] = {principal, action, resource};
    EntityUid uids[3];
    charter_status s = UidsOf(in, uids, error);
    if (s != CHARTER_OK) return s;
    CHARTER_TEXT(c, context_json, context_length, "the context");
    if (schema == nullptr && c.empty()) {
      *out = new charter_request(charter::Request::Create(std::move(uids[0]), std::move(uids[1]), std::move(uids[2])));
      return CHARTER_OK;
    }
    std::string_view name = NameOr(source_name, source_name_length, "context.json");
    absl::StatusOr<charter::Request> request =
        charter::Request::Create(std::move(uids[0]), std::move(uids[1]), std::move(uids[2]), c.empty() ? "{}" : c,
                                 schema != nullptr ? &schema->value.schema : nullptr, name);
    if (!request.ok()) return FailStatus(error, request.status(), name);
    *out = new charter_request(*std::move(request));
    return CHARTER_OK;
  });
}

int charter_request_uid(const charter_request* request, int part, charter_uid* out) {
  if (!Live(request, kRequestTag) || out == nullptr || part < 0 || part > 2) return 0;
  const EntityUid& u = RequestPart(request->value, part);
  *out = charter_uid{u.type.data(), u.type.size(), u.id.data(), u.id.size()};
  return 1;
}

charter_status charter_request_context_cedar(const charter_request* request, char** text, size_t* length,
                                             charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(request, kRequestTag, "charter_request");
    if (text == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`text` is NULL");
    std::string out = request->value.ContextToCedar();
    *text = CopyOut(out);
    if (length != nullptr) *length = out.size();
    return CHARTER_OK;
  });
}

charter_status charter_query_new(const charter_engine* engine, charter_unknown unknown, const charter_uid* known,
                                 const charter_uid* action, const char* type, size_t type_length,
                                 const char* context_json, size_t context_length, const char* source_name,
                                 size_t source_name_length, charter_query** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(engine, kEngineTag, "charter_engine");
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    if (unknown != CHARTER_UNKNOWN_RESOURCE && unknown != CHARTER_UNKNOWN_PRINCIPAL) {
      return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "`unknown` is neither CHARTER_UNKNOWN_RESOURCE nor "
                                                         "CHARTER_UNKNOWN_PRINCIPAL");
    }
    const bool resource_unknown = unknown == CHARTER_UNKNOWN_RESOURCE;
    const charter_uid* in[3] = {known, action, known};
    EntityUid uids[3];
    charter_status s = UidsOf(in, uids, error);
    if (s != CHARTER_OK) return s;
    CHARTER_TEXT(t, type, type_length, "the type");
    CHARTER_TEXT(c, context_json, context_length, "the context");
    return QueryFromUids(engine, resource_unknown, std::move(uids[0]), std::move(uids[1]), t, c,
                         NameOr(source_name, source_name_length, "context.json"), out, error);
  });
}

charter_status charter_schedule_cycle_with(const char* state_json, size_t state_length, int hyperpod,
                                           const char* scenario, size_t scenario_length, char** result,
                                           size_t* result_length, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (result == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`result` is NULL");
    CHARTER_TEXT(text, state_json, state_length, "the state's JSON");
    CHARTER_TEXT(id, scenario, scenario_length, "the scenario");
    charter::schedule::LoadOptions options;
    options.source_name = "state.json";
    options.scenario = std::string(id);
    absl::StatusOr<charter::schedule::State> state =
        hyperpod ? charter::schedule::LoadHyperPodState(text, options) : charter::schedule::LoadState(text, options);
    if (!state.ok()) return FailStatus(error, state.status(), "state.json");
    absl::StatusOr<charter::schedule::CycleResult> cycle = charter::schedule::RunCycle(*state);
    if (!cycle.ok()) return FailStatus(error, cycle.status(), "state.json");
    std::string out = cycle->ToJson();
    *result = CopyOut(out);
    if (result_length != nullptr) *result_length = out.size();
    return CHARTER_OK;
  });
}

}  // extern "C"

// --- values built in code ----------------------------------------------------------

namespace {

bool ValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (len == 0 || c > 0xf4 || i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return false;
    }
    if (len == 3 && ((c == 0xe0 && p[i + 1] < 0xa0) || (c == 0xed && p[i + 1] >= 0xa0))) return false;
    if (len == 4 && ((c == 0xf0 && p[i + 1] < 0x90) || (c == 0xf4 && p[i + 1] >= 0x90))) return false;
    i += len;
  }
  return true;
}

#define CHARTER_UTF8(var, p, n, what)                                                            \
  CHARTER_TEXT(var, p, n, what);                                                                 \
  if (!ValidUtf8(var)) return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, what " is not UTF-8")

charter_status NewValue(charter_value_kind kind, charter::Value scalar, charter_value** out, charter_error** error) {
  if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
  auto v = std::make_unique<charter_value>();
  v->value.kind = kind;
  v->value.scalar = std::move(scalar);
  *out = v.release();
  return CHARTER_OK;
}

// A container's charter::Value, made once (see ValueData).
const charter::Value& Sealed(ValueData& v) {
  if (!v.sealed.has_value()) {
    if (v.kind == CHARTER_VALUE_SET) {
      v.sealed.emplace(charter::Value::Set(std::move(v.elements)));
    } else {
      v.sealed.emplace(charter::Value::Record(std::move(v.fields)));
    }
    v.elements.clear();
    v.fields.clear();
  }
  return *v.sealed;
}

// A sealed container opened again to be added to: its parts copied back.
void Unseal(ValueData& v) {
  if (!v.sealed.has_value()) return;
  const charter::Value& made = *v.sealed;
  if (v.kind == CHARTER_VALUE_SET) {
    v.elements = made.elements();
  } else {
    for (size_t i = 0; i < made.keys().size(); ++i) v.fields.emplace_back(made.keys()[i], made.elements()[i]);
  }
  v.sealed.reset();
}

// The value a handle holds, moved out of it (to be added to a container).
charter::Value Take(ValueData& v) {
  if (v.kind != CHARTER_VALUE_SET && v.kind != CHARTER_VALUE_RECORD) return std::move(v.scalar);
  Sealed(v);
  charter::Value out = std::move(*v.sealed);
  v.sealed.reset();
  return out;
}

// The value a handle holds, to read (a container is sealed).
const charter::Value& Read(const charter_value* v) {
  ValueData& d = const_cast<ValueData&>(v->value);
  if (d.kind != CHARTER_VALUE_SET && d.kind != CHARTER_VALUE_RECORD) return d.scalar;
  return Sealed(d);
}

// A context given as a value: a record (NULL: empty).
charter_status ContextOf(const charter_value* context, const charter::Value** out, charter_error** error) {
  static const charter::Value* const kEmpty = new charter::Value();
  *out = kEmpty;
  if (context == nullptr) return CHARTER_OK;
  CHARTER_CHECK_HANDLE(context, kValueTag, "charter_value");
  if (context->value.kind != CHARTER_VALUE_RECORD) {
    return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "the context must be a record (charter_value_record)");
  }
  *out = &Read(context);
  return CHARTER_OK;
}

// The fields of an optional record value (attributes, tags).
charter_status FieldsOf(const charter_value* v, const char* what, size_t index,
                        std::vector<std::pair<std::string, charter::Value>>* out, charter_error** error) {
  if (v == nullptr) return CHARTER_OK;
  CHARTER_CHECK_HANDLE(v, kValueTag, "charter_value");
  if (v->value.kind != CHARTER_VALUE_RECORD) {
    return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,
                absl::StrCat("the ", what, " of entity ", index, " must be a record (charter_value_record)"));
  }
  const charter::Value& made = Read(v);
  for (size_t i = 0; i < made.keys().size(); ++i) out->emplace_back(made.keys()[i], made.elements()[i]);
  return CHARTER_OK;
}

}  // namespace

charter_status charter_value_bool(int b, charter_value** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    return NewValue(CHARTER_VALUE_BOOL, charter::Value::Bool(b != 0), out, error);
  });
}

charter_status charter_value_long(int64_t n, charter_value** out, charter_error** error) {
  return Guard(error,
               [&]() -> charter_status { return NewValue(CHARTER_VALUE_LONG, charter::Value::Long(n), out, error); });
}

charter_status charter_value_string(const char* text, size_t length, charter_value** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_UTF8(s, text, length, "the string");
    return NewValue(CHARTER_VALUE_STRING, charter::Value::String(std::string(s)), out, error);
  });
}

charter_status charter_value_entity(const charter_uid* uid, charter_value** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (uid == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`uid` is NULL");
    CHARTER_UTF8(type, uid->type, uid->type_length, "the entity's type");
    CHARTER_UTF8(id, uid->id, uid->id_length, "the entity's id");
    return NewValue(CHARTER_VALUE_ENTITY, charter::Value::Entity(EntityUid{std::string(type), std::string(id)}), out,
                    error);
  });
}

charter_status charter_value_extension(const char* fn, size_t fn_length, const char* arg, size_t arg_length,
                                       charter_value** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_UTF8(f, fn, fn_length, "the extension function");
    CHARTER_UTF8(a, arg, arg_length, "the extension argument");
    return NewValue(CHARTER_VALUE_EXTENSION, charter::Value::Extension(std::string(f), std::string(a)), out, error);
  });
}

charter_status charter_value_set(charter_value** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status { return NewValue(CHARTER_VALUE_SET, {}, out, error); });
}

charter_status charter_value_record(charter_value** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status { return NewValue(CHARTER_VALUE_RECORD, {}, out, error); });
}

charter_status charter_value_set_add(charter_value* set, charter_value* element, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(set, kValueTag, "charter_value");
    CHARTER_CHECK_HANDLE(element, kValueTag, "charter_value");
    if (set->value.kind != CHARTER_VALUE_SET) {
      return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "charter_value_set_add: the value is not a set");
    }
    if (set == element) return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "a set cannot hold itself");
    Unseal(set->value);
    set->value.elements.push_back(Take(element->value));
    Free(element, kValueTag);
    return CHARTER_OK;
  });
}

charter_status charter_value_record_add(charter_value* record, const char* key, size_t key_length,
                                        charter_value* value, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(record, kValueTag, "charter_value");
    CHARTER_CHECK_HANDLE(value, kValueTag, "charter_value");
    CHARTER_UTF8(k, key, key_length, "the key");
    if (record->value.kind != CHARTER_VALUE_RECORD) {
      return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "charter_value_record_add: the value is not a record");
    }
    if (record == value) return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "a record cannot hold itself");
    Unseal(record->value);
    record->value.fields.emplace_back(std::string(k), Take(value->value));
    Free(value, kValueTag);
    return CHARTER_OK;
  });
}

int charter_value_get_kind(const charter_value* value) {
  return Live(value, kValueTag) ? static_cast<int>(value->value.kind) : -1;
}

charter_status charter_value_json(const charter_value* value, char** json, size_t* length, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(value, kValueTag, "charter_value");
    if (json == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`json` is NULL");
    std::string text = Read(value).ToJson();
    char* out = static_cast<char*>(std::malloc(text.size() + 1));
    if (out == nullptr) return Fail(error, CHARTER_ERROR_OUT_OF_MEMORY, "out of memory");
    std::memcpy(out, text.data(), text.size());
    out[text.size()] = '\0';
    *json = out;
    if (length != nullptr) *length = text.size();
    return CHARTER_OK;
  });
}

void charter_value_free(charter_value* value) { Free(value, kValueTag); }

charter_status charter_request_new_value(const charter_uid* principal, const charter_uid* action,
                                         const charter_uid* resource, const charter_value* context,
                                         const charter_schema* schema, const char* source_name,
                                         size_t source_name_length, charter_request** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    if (schema != nullptr) CHARTER_CHECK_HANDLE(schema, kSchemaTag, "charter_schema");
    const charter_uid* in[3] = {principal, action, resource};
    EntityUid uids[3];
    if (charter_status s = UidsOf(in, uids, error); s != CHARTER_OK) return s;
    const charter::Value* record = nullptr;
    if (charter_status s = ContextOf(context, &record, error); s != CHARTER_OK) return s;
    if (schema == nullptr && record->keys().empty()) {
      *out = new charter_request(charter::Request::Create(std::move(uids[0]), std::move(uids[1]), std::move(uids[2])));
      return CHARTER_OK;
    }
    std::string_view name = NameOr(source_name, source_name_length, "context");
    absl::StatusOr<charter::Request> request =
        charter::Request::Create(std::move(uids[0]), std::move(uids[1]), std::move(uids[2]), *record,
                                 schema != nullptr ? &schema->value.schema : nullptr, name);
    if (!request.ok()) return FailStatus(error, request.status(), name);
    *out = new charter_request(*std::move(request));
    return CHARTER_OK;
  });
}

charter_status charter_entities_extend_values(const charter_entities* base, size_t count, const charter_uid* uids,
                                              const charter_value* const* attrs, const charter_value* const* tags,
                                              const charter_uid* const* parents, const size_t* parent_counts,
                                              charter_entities** out, charter_error** error) {
  return Guard(error, [&]() -> charter_status {
    CHARTER_CHECK_HANDLE(base, kEntitiesTag, "charter_entities");
    if (out == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`out` is NULL");
    if (count != 0 && uids == nullptr) return Fail(error, CHARTER_ERROR_NULL_HANDLE, "`uids` is NULL");
    if ((parents == nullptr) != (parent_counts == nullptr)) {
      return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, "`parents` and `parent_counts` must both be NULL or not");
    }
    std::vector<charter::Entity> built(count);
    for (size_t i = 0; i < count; ++i) {
      charter::Entity& e = built[i];
      const charter_uid* in[1] = {&uids[i]};
      std::string_view type, id;
      if (!Text(in[0]->type, in[0]->type_length, &type) || !Text(in[0]->id, in[0]->id_length, &id)) {
        return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,
                    absl::StrCat("the uid of entity ", i, " has a type or id NULL with a nonzero length"));
      }
      if (type.empty()) return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT, absl::StrCat("entity ", i, "'s type is empty"));
      e.uid = EntityUid{std::string(type), std::string(id)};
      if (attrs != nullptr) {
        if (charter_status s = FieldsOf(attrs[i], "attributes", i, &e.attrs, error); s != CHARTER_OK) return s;
      }
      if (tags != nullptr) {
        if (charter_status s = FieldsOf(tags[i], "tags", i, &e.tags, error); s != CHARTER_OK) return s;
      }
      if (parents != nullptr && parent_counts[i] != 0) {
        if (parents[i] == nullptr) {
          return Fail(error, CHARTER_ERROR_NULL_HANDLE, absl::StrCat("the parents of entity ", i, " are NULL"));
        }
        for (size_t k = 0; k < parent_counts[i]; ++k) {
          const charter_uid& p = parents[i][k];
          std::string_view pt, pi;
          if (!Text(p.type, p.type_length, &pt) || !Text(p.id, p.id_length, &pi) || pt.empty()) {
            return Fail(error, CHARTER_ERROR_INVALID_ARGUMENT,
                        absl::StrCat("parent ", k, " of entity ", i, " has an empty type, or one NULL with a length"));
          }
          e.parents.push_back(EntityUid{std::string(pt), std::string(pi)});
        }
      }
    }
    const EntitiesData& from = base->value;
    absl::StatusOr<charter::Entities> store =
        from.schema ? from.store.Extend(std::span<const charter::Entity>(built), *from.schema, "entities")
                    : from.store.Extend(std::span<const charter::Entity>(built), "entities");
    if (!store.ok()) return FailStatus(error, store.status(), "entities");
    auto e = std::make_unique<charter_entities>();
    e->value.store = *std::move(store);
    e->value.schema = from.schema;
    e->value.fingerprint = from.fingerprint;
    *out = e.release();
    return CHARTER_OK;
  });
}
