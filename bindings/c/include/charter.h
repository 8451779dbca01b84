/* charter.h: Charter's C API, for programs and language bindings that cannot
 * link C++ (Go through cgo, Lua, Python's extension, Rust's FFI, plain C).
 *
 *   charter_engine* engine = NULL;
 *   charter_error* error = NULL;
 *   if (charter_engine_load_bundle(path, strlen(path), &engine, &error) != CHARTER_OK) {
 *     fprintf(stderr, "%s\n", charter_error_message(error, NULL));
 *     charter_error_free(error);
 *     return 1;
 *   }
 *   charter_entities* entities = ...;          (charter_entities_from_json)
 *   charter_request* request = ...;            (charter_request_new)
 *   charter_eval_context* context = ...;       (charter_eval_context_new; one per thread)
 *   if (charter_authorize(engine, entities, request, context, &error) == CHARTER_OK &&
 *       charter_eval_context_allowed(context)) { ... }
 *
 * Conventions, for every function:
 *   - Strings are UTF-8, passed as a pointer and a length in bytes; they need
 *     no terminating NUL. A pointer may be NULL only when its length is 0.
 *     Strings the library returns are (pointer, length) too: they are
 *     NUL-terminated as well unless a function says otherwise, and may hold
 *     NUL bytes, so use the length.
 *   - A function that can fail returns a charter_status. On failure, when
 *     `error` is not NULL, *error receives a new charter_error that the
 *     caller frees with charter_error_free; on success *error is left as it
 *     was. Out parameters are written only on success.
 *   - Handles are opaque. A NULL handle is CHARTER_ERROR_NULL_HANDLE; a
 *     pointer that is not a live handle of the expected kind (a handle of
 *     another kind, one already freed) is CHARTER_ERROR_BAD_HANDLE as long as
 *     its memory has not been reused: each handle carries a tag that its free
 *     function clears. Freeing NULL does nothing.
 *   - Nothing C++ crosses this interface: no exception leaves a function (an
 *     allocation failure is CHARTER_ERROR_OUT_OF_MEMORY), and no input makes
 *     the library abort.
 *   - Thread safety: engines, entity stores, requests, queries, residuals,
 *     pages of matches and engine handles are immutable once made (a handle's
 *     swap is atomic) and may be used from any number of threads at once. An
 *     evaluation context and an error are used by one thread at a time.
 *
 * ABI: the C API is versioned by CHARTER_C_API_VERSION and by the shared
 * library's SONAME (libcharter.so.0.MINOR while the version is 0.x); a
 * release that keeps the C API's ABI keeps both. See docs/embedding.md.
 */
#ifndef CHARTER_C_H_
#define CHARTER_C_H_

#include <stddef.h>
#include <stdint.h>

#if defined(CHARTER_C_BUILDING) && defined(__GNUC__)
#define CHARTER_C_EXPORT __attribute__((visibility("default")))
#else
#define CHARTER_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The C API's version: it grows when functions are added; a change that
 * breaks callers changes the SONAME as well. */
#define CHARTER_C_API_VERSION 4  /* 2: queries and residuals (charter_query_*);
                                   3: schemas, diagnostics, compile options,
                                   uids, and what the Python binding needs;
                                   4: values built in code (charter_value_*)
                                   for contexts and entities */

/* The library's version, "MAJOR.MINOR.PATCH" (NUL-terminated, static). */
CHARTER_C_EXPORT const char* charter_version(void);
/* CHARTER_C_API_VERSION of the library that is loaded. */
CHARTER_C_EXPORT int charter_c_api_version(void);

/* ---- status and errors ------------------------------------------------------ */

typedef enum charter_status {
  CHARTER_OK = 0,
  /* Input that Charter refuses: policy text, a schema, JSON, a bundle. */
  CHARTER_ERROR_INVALID_ARGUMENT = 1,
  /* A file that does not exist or cannot be read. */
  CHARTER_ERROR_NOT_FOUND = 2,
  CHARTER_ERROR_PERMISSION_DENIED = 3,
  /* Input beyond a limit (size, nesting, count). */
  CHARTER_ERROR_LIMIT_EXCEEDED = 4,
  CHARTER_ERROR_NULL_HANDLE = 5,
  CHARTER_ERROR_BAD_HANDLE = 6,
  CHARTER_ERROR_OUT_OF_MEMORY = 7,
  /* An input/output failure other than the above. */
  CHARTER_ERROR_IO = 8,
  CHARTER_ERROR_INTERNAL = 9
} charter_status;

/* A short name of a status, "ok", "invalid_argument", ... (static). */
CHARTER_C_EXPORT const char* charter_status_name(charter_status status);

typedef struct charter_error charter_error;

CHARTER_C_EXPORT charter_status charter_error_status(const charter_error* error);
/* The message, one line: "SOURCE:LINE:COL: what is wrong" when the fault has
 * a place in an input. `length` may be NULL. */
CHARTER_C_EXPORT const char* charter_error_message(const charter_error* error, size_t* length);
/* The fault in full, for people: for policy text, every diagnostic with its
 * source line and underline; otherwise the message. `length` may be NULL. */
CHARTER_C_EXPORT const char* charter_error_detail(const charter_error* error, size_t* length);
/* Where the fault is: the input's name ("policies.cedar", "entities.json")
 * and 1-based line and column; 0 when the fault has no place. */
CHARTER_C_EXPORT const char* charter_error_source(const charter_error* error, size_t* length);
CHARTER_C_EXPORT uint32_t charter_error_line(const charter_error* error);
CHARTER_C_EXPORT uint32_t charter_error_column(const charter_error* error);
CHARTER_C_EXPORT void charter_error_free(charter_error* error);

/* Frees memory the library returned (bundle bytes, JSON text). */
CHARTER_C_EXPORT void charter_free(void* memory);

/* ---- engines ----------------------------------------------------------------- */

typedef struct charter_engine charter_engine;

/* Compiles policy text (Cedar text or Cedar's JSON policy format), with a
 * schema in Cedar's schema text or JSON when `schema` is not NULL (then the
 * policies are validated against it, and any validation error fails). No
 * schema is NULL and 0: a NULL schema with a nonzero length is refused
 * (CHARTER_ERROR_INVALID_ARGUMENT), as it is wherever a schema is taken. */
CHARTER_C_EXPORT charter_status charter_engine_compile(const char* policies, size_t policies_length,
                                                       const char* schema, size_t schema_length,
                                                       charter_engine** out, charter_error** error);
/* Reads and verifies a bundle file (`charter build`'s output). A path is
 * `path_length` bytes, not NUL-terminated; one that holds a NUL byte is
 * refused (CHARTER_ERROR_INVALID_ARGUMENT), as the system would open the
 * path up to that byte. */
CHARTER_C_EXPORT charter_status charter_engine_load_bundle(const char* path, size_t path_length,
                                                           charter_engine** out, charter_error** error);
/* Verifies bundle bytes (copied). */
CHARTER_C_EXPORT charter_status charter_engine_from_bundle(const void* bytes, size_t length,
                                                           charter_engine** out, charter_error** error);
/* Compiles policy text into bundle bytes, written to *bytes (free with
 * charter_free) and *length. */
CHARTER_C_EXPORT charter_status charter_compile_bundle(const char* policies, size_t policies_length,
                                                       const char* schema, size_t schema_length,
                                                       void** bytes, size_t* length, charter_error** error);
/* The number of policies (0 for a NULL or bad handle). */
CHARTER_C_EXPORT size_t charter_engine_policy_count(const charter_engine* engine);
CHARTER_C_EXPORT void charter_engine_free(charter_engine* engine);

/* ---- entity stores ----------------------------------------------------------- */

typedef struct charter_entities charter_entities;

/* Cedar's JSON entity format; with a schema (not NULL), read and checked as
 * Cedar does with one. Errors read "entities.json:LINE:COL: ...". */
CHARTER_C_EXPORT charter_status charter_entities_from_json(const char* json, size_t json_length,
                                                           const char* schema, size_t schema_length,
                                                           charter_entities** out, charter_error** error);
/* A new store: `base`'s entities and those of `json` (an array in the same
 * format, read with `base`'s schema), for entities that belong to one
 * request. The entities of `json` may name `base`'s as parents. An entity of
 * `base` given again is accepted when it is the same and an error when it
 * differs; so is data for an entity that `base` names as a parent without
 * data. `base` is neither copied nor read again: the cost
 * grows with `json` alone, and either store may be freed first. */
CHARTER_C_EXPORT charter_status charter_entities_extend(const charter_entities* base, const char* json,
                                                        size_t json_length, charter_entities** out,
                                                        charter_error** error);
/* The number of entities with data (0 for a NULL or bad handle). */
CHARTER_C_EXPORT size_t charter_entities_size(const charter_entities* entities);
CHARTER_C_EXPORT void charter_entities_free(charter_entities* entities);

/* ---- requests ---------------------------------------------------------------- */

typedef struct charter_request charter_request;

/* A request from its principal, action and resource in Cedar's text form,
 * `Type::"id"`, and a context given as a JSON object in Cedar's value
 * encoding (NULL or length 0: an empty context). */
CHARTER_C_EXPORT charter_status charter_request_new(const char* principal, size_t principal_length,
                                                    const char* action, size_t action_length,
                                                    const char* resource, size_t resource_length,
                                                    const char* context_json, size_t context_length,
                                                    charter_request** out, charter_error** error);

/* An entity reference as type and id, unescaped. */
typedef struct charter_uid {
  const char* type;
  size_t type_length;
  const char* id;
  size_t id_length;
} charter_uid;

/* The same, with each entity reference as a type and an id. */
CHARTER_C_EXPORT charter_status charter_request_new_uids(const charter_uid* principal, const charter_uid* action,
                                                         const charter_uid* resource, const char* context_json,
                                                         size_t context_length, charter_request** out,
                                                         charter_error** error);
/* A request in Charter's request JSON:
 * {"principal": ..., "action": ..., "resource": ..., "context": {...}}. */
CHARTER_C_EXPORT charter_status charter_request_from_json(const char* json, size_t json_length,
                                                          charter_request** out, charter_error** error);
CHARTER_C_EXPORT void charter_request_free(charter_request* request);

/* ---- deciding ------------------------------------------------------------------ */

/* Reusable memory for decisions, one per thread: once it has grown to the
 * policy set, a decision allocates nothing. The last decision is read from it
 * until the next call with it. */
typedef struct charter_eval_context charter_eval_context;

CHARTER_C_EXPORT charter_status charter_eval_context_new(charter_eval_context** out, charter_error** error);
CHARTER_C_EXPORT void charter_eval_context_free(charter_eval_context* context);

/* Decides `request` against `entities` (NULL: an empty store), writing the
 * decision into `context`. An evaluation error in a policy is not a failure:
 * the policy is skipped and listed among the decision's errors. */
CHARTER_C_EXPORT charter_status charter_authorize(const charter_engine* engine, const charter_entities* entities,
                                                  const charter_request* request, charter_eval_context* context,
                                                  charter_error** error);

/* The last decision made with `context`: 1 if allowed, 0 if denied (and 0
 * for a context that has decided nothing, or a NULL or bad one). */
CHARTER_C_EXPORT int charter_eval_context_allowed(const charter_eval_context* context);
/* The determining policies' ids, in policy-set order: the satisfied forbids
 * when any is satisfied, else the satisfied permits. The strings stay valid
 * until the next decision with the context and are NOT NUL-terminated. An
 * index out of range gives NULL and length 0. */
CHARTER_C_EXPORT size_t charter_eval_context_reason_count(const charter_eval_context* context);
CHARTER_C_EXPORT const char* charter_eval_context_reason(const charter_eval_context* context, size_t index,
                                                         size_t* length);
/* The policies whose evaluation erred: id and message (not NUL-terminated). */
CHARTER_C_EXPORT size_t charter_eval_context_error_count(const charter_eval_context* context);
CHARTER_C_EXPORT const char* charter_eval_context_error_policy(const charter_eval_context* context, size_t index,
                                                               size_t* length);
CHARTER_C_EXPORT const char* charter_eval_context_error_message(const charter_eval_context* context, size_t index,
                                                                size_t* length);
/* The last decision as `charter authorize --format json` prints it:
 * {"decision":"allow"|"deny","reasons":[...],"errors":[{"policy","message"}]}.
 * *json is NUL-terminated; free it with charter_free. */
CHARTER_C_EXPORT charter_status charter_eval_context_decision_json(const charter_eval_context* context, char** json,
                                                                   size_t* length, charter_error** error);

/* ---- a hot-swappable engine --------------------------------------------------- */

/* The engine a service decides with now. Every call takes the engine current
 * when it starts and keeps it until it returns; a swap installs a new one
 * atomically, so a decision sees the old policy set or the new, never a mix. */
typedef struct charter_engine_handle charter_engine_handle;

/* A handle deciding with `engine` (shared: `engine` may be freed after). */
CHARTER_C_EXPORT charter_status charter_engine_handle_new(const charter_engine* engine, charter_engine_handle** out,
                                                          charter_error** error);
CHARTER_C_EXPORT charter_status charter_engine_handle_swap(charter_engine_handle* handle, const charter_engine* engine,
                                                           charter_error** error);
/* Loads and verifies a bundle file and installs it; on failure the current
 * engine stays. */
CHARTER_C_EXPORT charter_status charter_engine_handle_swap_bundle(charter_engine_handle* handle, const char* path,
                                                                  size_t path_length, charter_error** error);
/* How many engines have been installed (1 after charter_engine_handle_new;
 * 0 for a NULL or bad handle). */
CHARTER_C_EXPORT uint64_t charter_engine_handle_generation(const charter_engine_handle* handle);
CHARTER_C_EXPORT charter_status charter_engine_handle_authorize(const charter_engine_handle* handle,
                                                                const charter_entities* entities,
                                                                const charter_request* request,
                                                                charter_eval_context* context, charter_error** error);
CHARTER_C_EXPORT void charter_engine_handle_free(charter_engine_handle* handle);

/* ---- queries: what a principal may do, and to what ------------------------------ */

/* A request with one side unknown: "which resources of type T may this
 * principal do this action on?" or "which principals of type T may do it on
 * this resource?" (docs/query.md). An answer is a listing, every entity of
 * the type in a store that the request is allowed on, each with the
 * policies that decided it (exactly what charter_authorize answers for each
 * one), or a residual, the condition on an unknown entity of the type under
 * which the request is allowed. */
typedef struct charter_query charter_query;

/* "Which resources of type `resource_type` may `principal` do `action` on?"
 * The principal and the action are in Cedar's text form, `Type::"id"`; the
 * context a JSON object in Cedar's value encoding (NULL or length 0: empty).
 * When `engine` was compiled with a schema the query is checked against it:
 * the action must be declared and apply to the principal's type and to
 * `resource_type`, and the context is read with it. The type is required:
 * a listing is of one type, as `charter query --resource-type` is. Faults
 * are CHARTER_ERROR_INVALID_ARGUMENT, those in the context with a place in
 * "context.json". Thread-safe. */
CHARTER_C_EXPORT charter_status charter_query_resources(const charter_engine* engine, const char* principal,
                                                        size_t principal_length, const char* action,
                                                        size_t action_length, const char* resource_type,
                                                        size_t resource_type_length, const char* context_json,
                                                        size_t context_length, charter_query** out,
                                                        charter_error** error);
/* "Which principals of type `principal_type` may do `action` on `resource`?" */
CHARTER_C_EXPORT charter_status charter_query_principals(const charter_engine* engine, const char* principal_type,
                                                         size_t principal_type_length, const char* action,
                                                         size_t action_length, const char* resource,
                                                         size_t resource_length, const char* context_json,
                                                         size_t context_length, charter_query** out,
                                                         charter_error** error);
CHARTER_C_EXPORT void charter_query_free(charter_query* query);

/* One entity the query is allowed on: its uid, the determining policies
 * (as charter_eval_context_reason gives them) and the policies skipped on it
 * with an error. A match is read only through these functions and lives as
 * long as what gave it (the callback's call, or its page). Its strings are
 * NOT NUL-terminated. An index out of range gives NULL and length 0; a NULL
 * match gives NULL (or 0). */
typedef struct charter_match charter_match;

CHARTER_C_EXPORT const char* charter_match_type(const charter_match* match, size_t* length);
CHARTER_C_EXPORT const char* charter_match_id(const charter_match* match, size_t* length);
CHARTER_C_EXPORT size_t charter_match_reason_count(const charter_match* match);
CHARTER_C_EXPORT const char* charter_match_reason(const charter_match* match, size_t index, size_t* length);
CHARTER_C_EXPORT size_t charter_match_error_count(const charter_match* match);
CHARTER_C_EXPORT const char* charter_match_error_policy(const charter_match* match, size_t index, size_t* length);
CHARTER_C_EXPORT const char* charter_match_error_message(const charter_match* match, size_t index, size_t* length);

/* Listing comes in two forms, over the same candidates (the entities of the
 * unknown's type that the store holds data for, in the store's order):
 *
 *   - streamed: charter_list_allowed calls `callback` for each allowed entity
 *     as it is decided, with views into `context`; once the context has grown
 *     it allocates nothing per candidate. For a program that filters or
 *     counts as it goes, or stops at the first few.
 *   - paged: charter_list_allowed_page returns up to `limit` matches from a
 *     cursor, as values that live with the page, and the cursor of the next
 *     page. For a caller that must not be called back (a language whose
 *     errors unwind with longjmp, such as Lua; a Go program, where a call
 *     from C into Go costs more than a decision), or that hands pages to a
 *     client. The Go and Lua bindings use this form.
 *
 * Both check the query against the store first: the known side must be in
 * it, and without a schema some entity must have the unknown's type (a
 * misspelt type is an error, with the nearest name, not an empty list). */

/* Called for each allowed entity: return 0 to go on, nonzero to stop (the
 * call then returns CHARTER_OK). The callback must return normally: it may
 * not longjmp or throw out of the library. It must not use `context`. */
typedef int (*charter_match_callback)(const charter_match* match, void* user_data);

/* Streams the allowed entities of `query` in `entities` (NULL: an empty
 * store) to `callback`, deciding with `engine` and `context` (NULL: a fresh
 * one for the call). Afterwards `context` holds no decision to read. Thread
 * safety: as charter_authorize (the context is one thread's). */
CHARTER_C_EXPORT charter_status charter_list_allowed(const charter_engine* engine, const charter_entities* entities,
                                                     const charter_query* query, charter_eval_context* context,
                                                     charter_match_callback callback, void* user_data,
                                                     charter_error** error);

/* A page of matches, immutable. */
typedef struct charter_match_page charter_match_page;

/* Up to `limit` (at least 1) allowed entities, starting at cursor `start`
 * (0 for the first page, then charter_match_page_next of the previous page
 * from the same store and query). Thread-safe. */
CHARTER_C_EXPORT charter_status charter_list_allowed_page(const charter_engine* engine,
                                                          const charter_entities* entities,
                                                          const charter_query* query, size_t start, size_t limit,
                                                          charter_match_page** out, charter_error** error);
CHARTER_C_EXPORT size_t charter_match_page_count(const charter_match_page* page);
/* The index-th match (NULL out of range); it lives as long as the page. */
CHARTER_C_EXPORT const charter_match* charter_match_page_at(const charter_match_page* page, size_t index);
/* The cursor of the next page, or 0 when every candidate has been examined. */
CHARTER_C_EXPORT size_t charter_match_page_next(const charter_match_page* page);
CHARTER_C_EXPORT void charter_match_page_free(charter_match_page* page);

/* ---- residuals -------------------------------------------------------------------- */

/* The condition on an unknown entity of the query's type under which the
 * request is allowed, from partial evaluation of the policy text with the
 * known side, the action and the context folded in: `charter query
 * --residual` (docs/query.md, "Residuals"). Immutable. */
typedef struct charter_residual charter_residual;

typedef enum charter_residual_outcome {
  CHARTER_RESIDUAL_ALLOW = 0,    /* allowed on every entity of the type */
  CHARTER_RESIDUAL_DENY = 1,     /* denied on every entity of the type */
  CHARTER_RESIDUAL_DEPENDS = 2   /* allowed exactly where the condition holds */
} charter_residual_outcome;

/* The residual of `query` against `entities` (NULL: an empty store). The
 * engine must have been compiled from policy text (charter_engine_compile):
 * a bundle holds compiled code only, and an engine loaded from one is
 * CHARTER_ERROR_INVALID_ARGUMENT. The first residual of an engine reads its
 * policy text once more; later ones reuse it. Thread-safe. */
CHARTER_C_EXPORT charter_status charter_residual_new(const charter_engine* engine, const charter_entities* entities,
                                                     const charter_query* query, charter_residual** out,
                                                     charter_error** error);
/* The outcome (CHARTER_RESIDUAL_DENY for a NULL or bad handle). */
CHARTER_C_EXPORT charter_residual_outcome charter_residual_get_outcome(const charter_residual* residual);
/* 1 when the condition can never fail to evaluate, else 0. */
CHARTER_C_EXPORT int charter_residual_exact(const charter_residual* residual);
/* The condition as Cedar text over `resource` (or `principal`): "true" or
 * "false" when it does not depend on the unknown. NUL-terminated. */
CHARTER_C_EXPORT const char* charter_residual_condition(const charter_residual* residual, size_t* length);
/* The same as Cedar's JSON expression (the EST of its JSON policy format). */
CHARTER_C_EXPORT const char* charter_residual_condition_json(const charter_residual* residual, size_t* length);
/* The whole residual as `charter query --residual --format json` prints it
 * (outcome, condition, conditionJson, exact, labelSelector, policies, errors). */
CHARTER_C_EXPORT const char* charter_residual_json(const charter_residual* residual, size_t* length);
/* The whole residual for people, as `charter query --residual` prints it. */
CHARTER_C_EXPORT const char* charter_residual_text(const charter_residual* residual, size_t* length);
/* The condition as a Kubernetes label selector, or NULL (length 0) when
 * there is none; "" selects everything. */
CHARTER_C_EXPORT const char* charter_residual_label_selector(const charter_residual* residual, size_t* length);
CHARTER_C_EXPORT void charter_residual_free(charter_residual* residual);

/* ---- scheduling ----------------------------------------------------------------- */

/* One Kueue scheduling cycle over a cluster state in the JSON of
 * docs/scheduling.md (or HyperPod's objects when `hyperpod` is nonzero);
 * *result is the cycle's outcome as `charter schedule --format json` prints
 * it (NUL-terminated; free with charter_free). */
CHARTER_C_EXPORT charter_status charter_schedule_cycle(const char* state_json, size_t state_length, int hyperpod,
                                                       char** result, size_t* result_length, charter_error** error);

/* ---- version 3: schemas, diagnostics, options -------------------------------------
 *
 * What a binding needs to offer the whole API without C++ (the Python binding
 * is built on these alone): a schema as a handle, every diagnostic of a fault
 * with its code, compile options (a source name, template links, a schema
 * handle), an engine's policy ids and warnings, the uids of a store, entity
 * references parsed and printed, requests and queries read with a schema,
 * and a scheduling scenario. */

typedef enum charter_severity { CHARTER_SEVERITY_ERROR = 0, CHARTER_SEVERITY_WARNING = 1 } charter_severity;

/* One diagnostic: a fault (or a warning) in policy or schema text, with its
 * stable code ("CH0101", docs/diagnostics.md), a one-line message, the
 * input's name, its 1-based line and column, and a help line or "". The
 * strings are views into what gave it (an error, an engine). */
typedef struct charter_diagnostic {
  charter_severity severity;
  const char* code;
  size_t code_length;
  const char* message;
  size_t message_length;
  const char* source;
  size_t source_length;
  uint32_t line;
  uint32_t column;
  const char* help;
  size_t help_length;
} charter_diagnostic;

/* The code of the fault ("CH0101", "CH0402"...), or "" when it has none:
 * the first error diagnostic of policy or schema text, or the code a JSON
 * reader gave. */
CHARTER_C_EXPORT const char* charter_error_code(const charter_error* error, size_t* length);
/* Every diagnostic of a fault in policy or schema text (0 for other faults);
 * charter_error_diagnostic fills *out and returns 1, or returns 0 for an
 * index out of range. */
CHARTER_C_EXPORT size_t charter_error_diagnostic_count(const charter_error* error);
CHARTER_C_EXPORT int charter_error_diagnostic(const charter_error* error, size_t index, charter_diagnostic* out);

/* -- schemas -- */

/* A schema, read once and shared (immutable). */
typedef struct charter_schema charter_schema;

/* Reads Cedar's schema text, or its JSON schema format when the text starts
 * with `{`. `source_name` names the text in errors (NULL or empty:
 * "schema.json" or "schema.cedarschema"). A fault is
 * CHARTER_ERROR_INVALID_ARGUMENT with every diagnostic. */
CHARTER_C_EXPORT charter_status charter_schema_parse(const char* text, size_t text_length, const char* source_name,
                                                     size_t source_name_length, charter_schema** out,
                                                     charter_error** error);
/* The schema in Cedar's JSON schema format, in its text, and its fingerprint
 * ("sha256:" and the SHA-256 of the JSON: the same for the same schema). */
CHARTER_C_EXPORT const char* charter_schema_json(const charter_schema* schema, size_t* length);
CHARTER_C_EXPORT const char* charter_schema_cedar(const charter_schema* schema, size_t* length);
CHARTER_C_EXPORT const char* charter_schema_fingerprint(const charter_schema* schema, size_t* length);
/* Its entity types, sorted, and its actions as `Action::"name"` text, sorted
 * (NULL and length 0 out of range). */
CHARTER_C_EXPORT size_t charter_schema_entity_type_count(const charter_schema* schema);
CHARTER_C_EXPORT const char* charter_schema_entity_type(const charter_schema* schema, size_t index, size_t* length);
CHARTER_C_EXPORT size_t charter_schema_action_count(const charter_schema* schema);
CHARTER_C_EXPORT const char* charter_schema_action(const charter_schema* schema, size_t index, size_t* length);
CHARTER_C_EXPORT void charter_schema_free(charter_schema* schema);

/* -- compiling with options -- */

/* Zero-initialize, then set what you need. */
typedef struct charter_compile_options {
  /* The policy text's name in diagnostics (NULL or empty: "policies.cedar"). */
  const char* source_name;
  size_t source_name_length;
  /* A schema to validate and compile against (NULL: untyped). The engine
   * keeps it (the handle may be freed after): queries are read with it and
   * NULL entities stand for its actions. Requests for the engine are made
   * with charter_request_new_with and the same schema. */
  const charter_schema* schema;
  /* Template links as JSON, in the Cedar CLI's --template-linked form
   * (NULL and 0: none). */
  const char* links_json;
  size_t links_json_length;
} charter_compile_options;

/* charter_engine_compile and charter_compile_bundle with options (NULL:
 * the defaults). A fault in the text has every diagnostic. */
CHARTER_C_EXPORT charter_status charter_engine_compile_with(const char* policies, size_t policies_length,
                                                            const charter_compile_options* options,
                                                            charter_engine** out, charter_error** error);
CHARTER_C_EXPORT charter_status charter_compile_bundle_with(const char* policies, size_t policies_length,
                                                            const charter_compile_options* options, void** bytes,
                                                            size_t* length, charter_error** error);
/* charter_engine_from_bundle and charter_engine_load_bundle for a bundle
 * compiled with `schema` (NULL: one compiled without): a bundle whose
 * schema's fingerprint is not `schema`'s is CHARTER_ERROR_INVALID_ARGUMENT.
 * The engine keeps the schema, as one compiled with it does. */
CHARTER_C_EXPORT charter_status charter_engine_from_bundle_with(const void* bytes, size_t length,
                                                                const charter_schema* schema, charter_engine** out,
                                                                charter_error** error);
CHARTER_C_EXPORT charter_status charter_engine_load_bundle_with(const char* path, size_t path_length,
                                                                const charter_schema* schema, charter_engine** out,
                                                                charter_error** error);
/* The index-th policy's id, in policy-set order (NULL and 0 out of range;
 * NOT NUL-terminated), and the index of the policy `id` (SIZE_MAX if none),
 * so that a binding can keep one string a policy. */
CHARTER_C_EXPORT const char* charter_engine_policy_id(const charter_engine* engine, size_t index, size_t* length);
CHARTER_C_EXPORT size_t charter_engine_policy_index(const charter_engine* engine, const char* id, size_t id_length);
/* The fingerprint of the schema the bundle was compiled with, or "". */
CHARTER_C_EXPORT const char* charter_engine_schema_fingerprint(const charter_engine* engine, size_t* length);
/* The compiler's warnings (an engine from a bundle has none). */
CHARTER_C_EXPORT size_t charter_engine_warning_count(const charter_engine* engine);
CHARTER_C_EXPORT int charter_engine_warning(const charter_engine* engine, size_t index, charter_diagnostic* out);

/* -- entity stores -- */

/* charter_entities_from_json with a schema handle (NULL: none) and the
 * text's name in errors (NULL or empty: "entities.json"). */
CHARTER_C_EXPORT charter_status charter_entities_from_json_with(const char* json, size_t json_length,
                                                                const charter_schema* schema,
                                                                const char* source_name, size_t source_name_length,
                                                                charter_entities** out, charter_error** error);
/* The index-th entity with data, in the store's order: fills *out with views
 * that live as long as the store and returns 1, or 0 out of range. */
CHARTER_C_EXPORT int charter_entities_uid(const charter_entities* entities, size_t index, charter_uid* out);
/* 1 if the store holds data for `uid`, else 0. */
CHARTER_C_EXPORT int charter_entities_contains(const charter_entities* entities, const charter_uid* uid);
/* The fingerprint of the schema the store was read with, or "". */
CHARTER_C_EXPORT const char* charter_entities_schema_fingerprint(const charter_entities* entities, size_t* length);

/* -- entity references -- */

/* Reads Cedar's text form `Type::"id"` (namespaces, escapes): the unescaped
 * type and id are written into `buffer` (`capacity` bytes; `text_length`
 * always suffice) and *out points into it. */
CHARTER_C_EXPORT charter_status charter_uid_parse(const char* text, size_t text_length, char* buffer,
                                                  size_t capacity, charter_uid* out, charter_error** error);
/* Writes `uid` in the text form (free *text with charter_free). A type that
 * is not a name as charter_uid_parse reads one (a reserved word such as
 * `if`, an empty segment) is CHARTER_ERROR_INVALID_ARGUMENT with the message
 * charter_uid_parse gives for the text. */
CHARTER_C_EXPORT charter_status charter_uid_format(const charter_uid* uid, char** text, size_t* length,
                                                   charter_error** error);

/* -- requests and queries read with a schema -- */

/* charter_request_new_uids with the request read with `schema` (NULL: none),
 * as a typed engine reads it: the action must be declared and apply to the
 * principal's and the resource's types, and the context must conform.
 * `source_name` names the context in errors (NULL or empty:
 * "context.json"). The uids are taken as they are (charter_uid_format
 * checks a type). */
CHARTER_C_EXPORT charter_status charter_request_new_with(const charter_uid* principal, const charter_uid* action,
                                                         const charter_uid* resource, const char* context_json,
                                                         size_t context_length, const charter_schema* schema,
                                                         const char* source_name, size_t source_name_length,
                                                         charter_request** out, charter_error** error);
/* A request's principal (part 0), action (1) or resource (2), as views that
 * live as long as the request; 0 for another part. */
CHARTER_C_EXPORT int charter_request_uid(const charter_request* request, int part, charter_uid* out);
/* The context as a Cedar record literal (free *text with charter_free). */
CHARTER_C_EXPORT charter_status charter_request_context_cedar(const charter_request* request, char** text,
                                                              size_t* length, charter_error** error);

typedef enum charter_unknown { CHARTER_UNKNOWN_RESOURCE = 0, CHARTER_UNKNOWN_PRINCIPAL = 1 } charter_unknown;

/* charter_query_resources (CHARTER_UNKNOWN_RESOURCE: `known` is the
 * principal) or charter_query_principals (`known` is the resource) with the
 * entities as uids, and `source_name` naming the context (NULL or empty:
 * "context.json"). Read with the engine's schema, if it has one. */
CHARTER_C_EXPORT charter_status charter_query_new(const charter_engine* engine, charter_unknown unknown,
                                                  const charter_uid* known, const charter_uid* action,
                                                  const char* type, size_t type_length, const char* context_json,
                                                  size_t context_length, const char* source_name,
                                                  size_t source_name_length, charter_query** out,
                                                  charter_error** error);

/* charter_schedule_cycle for one scenario of a file of scenarios ({"scenarios":
 * [...]}, `scenario` its id; NULL or empty: the only one). */
CHARTER_C_EXPORT charter_status charter_schedule_cycle_with(const char* state_json, size_t state_length,
                                                            int hyperpod, const char* scenario,
                                                            size_t scenario_length, char** result,
                                                            size_t* result_length, charter_error** error);


/* ---- version 4: values built in code -------------------------------------------
 *
 * A Cedar value made by calls instead of JSON text, for a request's context
 * (charter_request_new_value) and for entities built in code
 * (charter_entities_extend_values): what the C++ API's charter::Value is,
 * without C++. A binding turns its language's dict or table into one
 * directly, and nothing writes or reads JSON text.
 *
 *   charter_value* context = NULL;  charter_value* now = NULL;
 *   charter_value_record(&context, &error);
 *   charter_value_extension("datetime", 8, "2025-11-03T09:00:00Z", 20, &now, &error);
 *   charter_value_record_add(context, "now", 3, now, &error);   (takes `now`)
 *   charter_request_new_value(&p, &a, &r, context, schema, NULL, 0, &request, &error);
 *   charter_value_free(context);                               (and what it holds)
 *
 * A value is a tree: a set or a record owns what was added to it, and
 * freeing it frees them. A value is read where it is used, as Cedar's JSON
 * value encoding of it (entities as `__entity`, extension values as
 * `__extn`, sets as arrays, records as objects) would be read there: the
 * same request, the same decisions, the same checks against a schema
 * (where a schema expects an entity or an extension value, the plain forms
 * the JSON reader takes are taken too: a record {"type", "id"}, a record
 * {"fn", "arg"}, an extension value's string), and the same faults,
 * reported as "SOURCE: context: attribute `PATH`: message" with no line or
 * column. So a set may mix kinds where Cedar's JSON may (untyped), a record
 * with a key given twice is refused where it is used, and an extension's
 * argument ("1.5", "10.0.0.1") is parsed where it is used. A value is used
 * by one thread at a time (its first use settles a set or a record into the
 * form the library reads, so that using it again copies nothing; adding to
 * it afterwards is allowed and costs a copy). */

typedef struct charter_value charter_value;

typedef enum charter_value_kind {
  CHARTER_VALUE_BOOL = 0,
  CHARTER_VALUE_LONG = 1,
  CHARTER_VALUE_STRING = 2,
  CHARTER_VALUE_ENTITY = 3,
  CHARTER_VALUE_SET = 4,
  CHARTER_VALUE_RECORD = 5,
  CHARTER_VALUE_EXTENSION = 6
} charter_value_kind;

/* A boolean (0 is false, anything else true), a Long (every int64_t is
 * one), a string (UTF-8, copied; invalid UTF-8 is
 * CHARTER_ERROR_INVALID_ARGUMENT). */
CHARTER_C_EXPORT charter_status charter_value_bool(int b, charter_value** out, charter_error** error);
CHARTER_C_EXPORT charter_status charter_value_long(int64_t n, charter_value** out, charter_error** error);
CHARTER_C_EXPORT charter_status charter_value_string(const char* text, size_t length, charter_value** out,
                                                     charter_error** error);
/* An entity reference (copied). Its type is checked where it is used (an
 * empty type, or `if`, is refused there, as in JSON text). */
CHARTER_C_EXPORT charter_status charter_value_entity(const charter_uid* uid, charter_value** out,
                                                     charter_error** error);
/* A call of one of Cedar's extension constructors on a string: `fn` is
 * "ip", "decimal", "datetime" or "duration" (and the argument its text:
 * "10.0.0.1", "1.5", "2025-11-03T09:00:00Z", "1h30m"). Both are checked
 * where the value is used, with the constructor's reason. */
CHARTER_C_EXPORT charter_status charter_value_extension(const char* fn, size_t fn_length, const char* arg,
                                                        size_t arg_length, charter_value** out,
                                                        charter_error** error);
/* An empty set and an empty record, filled by the calls below. */
CHARTER_C_EXPORT charter_status charter_value_set(charter_value** out, charter_error** error);
CHARTER_C_EXPORT charter_status charter_value_record(charter_value** out, charter_error** error);
/* Adds `element` to `set`, or `value` under `key` to `record`. On success
 * the added value belongs to the container and its handle is gone (do not
 * use or free it); on failure the caller still owns it. Adding a value to
 * a container of another kind, or a container to itself, is
 * CHARTER_ERROR_INVALID_ARGUMENT. */
CHARTER_C_EXPORT charter_status charter_value_set_add(charter_value* set, charter_value* element,
                                                      charter_error** error);
CHARTER_C_EXPORT charter_status charter_value_record_add(charter_value* record, const char* key, size_t key_length,
                                                         charter_value* value, charter_error** error);
/* The kind of a value, or -1 for a NULL or bad handle. */
CHARTER_C_EXPORT int charter_value_get_kind(const charter_value* value);
/* The value in Cedar's JSON value encoding (free *json with charter_free). */
CHARTER_C_EXPORT charter_status charter_value_json(const charter_value* value, char** json, size_t* length,
                                                   charter_error** error);
/* Frees a value and everything added to it. */
CHARTER_C_EXPORT void charter_value_free(charter_value* value);

/* charter_request_new_with with the context given as a value (NULL: an
 * empty context), which must be a record; it is read, not taken (free it
 * after, or use it again). `source_name` names the context in errors
 * (NULL or empty: "context"). The same request as charter_request_new_with
 * with the value's JSON (charter_value_json) gives. */
CHARTER_C_EXPORT charter_status charter_request_new_value(const charter_uid* principal, const charter_uid* action,
                                                          const charter_uid* resource, const charter_value* context,
                                                          const charter_schema* schema, const char* source_name,
                                                          size_t source_name_length, charter_request** out,
                                                          charter_error** error);

/* Entities built in code, laid over a store (the C face of the C++ API's
 * Entities::Extend with built entities): `count` entities, the i-th with
 * uid uids[i], attributes attrs[i] (a record; NULL: none), tags tags[i]
 * (a record; NULL: none; `tags` itself may be NULL) and direct parents
 * parents[i][0 .. parent_counts[i]) (`parents` and `parent_counts` may be
 * NULL: none). The same store as charter_entities_extend with their JSON
 * gives, with `base`'s schema, without writing or reading text. The values
 * are read, not taken. Errors are "entities: entity T::\"id\": ...". */
CHARTER_C_EXPORT charter_status charter_entities_extend_values(const charter_entities* base, size_t count,
                                                               const charter_uid* uids,
                                                               const charter_value* const* attrs,
                                                               const charter_value* const* tags,
                                                               const charter_uid* const* parents,
                                                               const size_t* parent_counts, charter_entities** out,
                                                               charter_error** error);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* CHARTER_C_H_ */
