/* charter_lua.c: the Lua module `charter`, over Charter's C API (charter.h).
 * Builds for Lua 5.1 (the Lua Slurm's job_submit/lua plugin embeds) and 5.4.
 *
 *   local charter = require("charter")
 *   local engine = assert(charter.compile(policies_text [, schema_text]))
 *   local engine = assert(charter.load_bundle("policies.bundle"))
 *   local entities = assert(charter.entities(json_text [, schema_text]))
 *   local d = engine:authorize{principal = 'User::"alice"', action = 'Action::"view"',
 *                              resource = {type = "Photo", id = "p1"},
 *                              context = {mfa = true}, entities = entities}
 *   -- d.decision == "allow" or "deny"; d.reasons = {ids}; d.errors = {{policy=, message=}}
 *
 * Bad input from Lua code (a wrong type, a malformed entity reference, a
 * context value Cedar cannot hold) raises a Lua error in luaL_argerror's
 * style carrying Charter's message; a policy, bundle or entity document that
 * Charter refuses is `nil, message`. Handles are freed by __gc (or :close()).
 * An engine keeps one evaluation context, so that a decision allocates no
 * C memory once it has grown; a Lua state is single-threaded, so that is safe.
 */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "charter.h"

#define ENGINE_MT "charter.Engine"
#define ENTITIES_MT "charter.Entities"
#define MAX_DEPTH 64

#if LUA_VERSION_NUM < 502
#define lua_rawlen lua_objlen
#define luaL_setfuncs_compat(L, l) luaL_register(L, NULL, l)
/* Lua 5.1 has no luaL_testudata: the userdata at `index` if its metatable is
 * `name`'s, else NULL. */
static void* luaL_testudata_compat(lua_State* L, int index, const char* name) {
  void* p = lua_touserdata(L, index);
  if (p == NULL || !lua_getmetatable(L, index)) return NULL;
  luaL_getmetatable(L, name);
  int same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? p : NULL;
}
#else
#define luaL_setfuncs_compat(L, l) luaL_setfuncs(L, l, 0)
#define luaL_testudata_compat luaL_testudata
#endif

/* A growable byte buffer kept by the engine between calls, so that building
 * a request allocates only until it has grown. */
typedef struct {
  char* data;
  size_t len;
  size_t cap;
} Buf;

typedef struct {
  charter_engine* engine;
  charter_eval_context* context;
  Buf buf; /* the request being built: the three uids' text */
  /* The context being built as a charter_value: every handle made and not
   * yet added to its container, so that a Lua error (a longjmp) in the
   * middle leaks nothing: the next call, or __gc, frees them. */
  charter_value* pending[2 * MAX_DEPTH + 8];
  int pending_n;
  charter_error* value_error; /* a refusal while building, for `nil, message` */
} EngineBox;

typedef struct {
  charter_entities* entities;
} EntitiesBox;

/* ---- errors ------------------------------------------------------------------- */

/* Pushes nil and the message of `error` (freeing it): the `nil, message`
 * return of a constructor. */
static int push_failure(lua_State* L, charter_error* error) {
  lua_pushnil(L);
  if (error != NULL) {
    size_t len = 0;
    const char* msg = charter_error_message(error, &len);
    lua_pushlstring(L, msg, len);
    charter_error_free(error);
  } else {
    lua_pushliteral(L, "charter: unknown error");
  }
  return 2;
}

/* ---- constructors ------------------------------------------------------------- */

static EngineBox* new_engine_box(lua_State* L) {
  EngineBox* box = (EngineBox*)lua_newuserdata(L, sizeof(EngineBox));
  box->engine = NULL;
  box->context = NULL;
  box->buf.data = NULL;
  box->buf.len = box->buf.cap = 0;
  box->pending_n = 0;
  box->value_error = NULL;
  luaL_getmetatable(L, ENGINE_MT);
  lua_setmetatable(L, -2);
  return box;
}

/* Finishes an engine constructor: on success the box on the stack top is
 * the result; on failure, nil and the message. */
static int finish_engine(lua_State* L, EngineBox* box, charter_status status,
                         charter_error* error) {
  if (status != CHARTER_OK) return push_failure(L, error);
  status = charter_eval_context_new(&box->context, &error);
  if (status != CHARTER_OK) return push_failure(L, error);
  return 1;
}

/* charter.compile(text [, schema]) */
static int l_compile(lua_State* L) {
  size_t text_len = 0, schema_len = 0;
  const char* text = luaL_checklstring(L, 1, &text_len);
  const char* schema = luaL_optlstring(L, 2, NULL, &schema_len);
  EngineBox* box = new_engine_box(L);
  charter_error* error = NULL;
  charter_status status =
      charter_engine_compile(text, text_len, schema, schema_len, &box->engine, &error);
  return finish_engine(L, box, status, error);
}

/* charter.load_bundle(path) */
static int l_load_bundle(lua_State* L) {
  size_t path_len = 0;
  const char* path = luaL_checklstring(L, 1, &path_len);
  EngineBox* box = new_engine_box(L);
  charter_error* error = NULL;
  charter_status status = charter_engine_load_bundle(path, path_len, &box->engine, &error);
  return finish_engine(L, box, status, error);
}

/* charter.entities(json [, schema]) */
static int l_entities(lua_State* L) {
  size_t json_len = 0, schema_len = 0;
  const char* json = luaL_checklstring(L, 1, &json_len);
  const char* schema = luaL_optlstring(L, 2, NULL, &schema_len);
  EntitiesBox* box = (EntitiesBox*)lua_newuserdata(L, sizeof(EntitiesBox));
  box->entities = NULL;
  luaL_getmetatable(L, ENTITIES_MT);
  lua_setmetatable(L, -2);
  charter_error* error = NULL;
  charter_status status =
      charter_entities_from_json(json, json_len, schema, schema_len, &box->entities, &error);
  if (status != CHARTER_OK) return push_failure(L, error);
  return 1;
}

static int l_version(lua_State* L) {
  lua_pushstring(L, charter_version());
  return 1;
}

/* ---- handles ------------------------------------------------------------------ */

static EngineBox* check_engine(lua_State* L, int index) {
  EngineBox* box = (EngineBox*)luaL_checkudata(L, index, ENGINE_MT);
  if (box->engine == NULL) luaL_argerror(L, index, "the engine is closed");
  return box;
}

/* Frees what a context left pending (after a Lua error in the middle). */
static void drop_pending(EngineBox* box) {
  while (box->pending_n > 0) charter_value_free(box->pending[--box->pending_n]);
  if (box->value_error != NULL) charter_error_free(box->value_error);
  box->value_error = NULL;
}

static int engine_gc(lua_State* L) {
  EngineBox* box = (EngineBox*)luaL_checkudata(L, 1, ENGINE_MT);
  drop_pending(box);
  if (box->context != NULL) charter_eval_context_free(box->context);
  if (box->engine != NULL) charter_engine_free(box->engine);
  box->context = NULL;
  box->engine = NULL;
  if (box->buf.data != NULL) {
    void* ud = NULL;
    lua_Alloc alloc = lua_getallocf(L, &ud);
    alloc(ud, box->buf.data, box->buf.cap, 0);
    box->buf.data = NULL;
    box->buf.len = box->buf.cap = 0;
  }
  return 0;
}

static int engine_tostring(lua_State* L) {
  EngineBox* box = (EngineBox*)luaL_checkudata(L, 1, ENGINE_MT);
  if (box->engine == NULL) {
    lua_pushliteral(L, "charter.Engine (closed)");
  } else {
    lua_pushfstring(L, "charter.Engine (%d policies)", (int)charter_engine_policy_count(box->engine));
  }
  return 1;
}

static int engine_policy_count(lua_State* L) {
  EngineBox* box = check_engine(L, 1);
  lua_pushinteger(L, (lua_Integer)charter_engine_policy_count(box->engine));
  return 1;
}

/* engine:policy_ids(): the policies' ids, in policy-set order, as a list. */
static int engine_policy_ids(lua_State* L) {
  EngineBox* box = check_engine(L, 1);
  size_t count = charter_engine_policy_count(box->engine);
  lua_createtable(L, (int)count, 0);
  for (size_t i = 0; i < count; ++i) {
    size_t n = 0;
    const char* id = charter_engine_policy_id(box->engine, i, &n);
    lua_pushlstring(L, id == NULL ? "" : id, n);
    lua_rawseti(L, -2, (int)i + 1);
  }
  return 1;
}

static EntitiesBox* check_entities_at(lua_State* L, int index, int arg, const char* field) {
  EntitiesBox* box = (EntitiesBox*)luaL_testudata_compat(L, index, ENTITIES_MT);
  if (box == NULL) {
    lua_pushfstring(L, "field '%s': expected charter entities (from charter.entities), got %s",
                    field, luaL_typename(L, index));
    luaL_argerror(L, arg, lua_tostring(L, -1));
  }
  if (box->entities == NULL) {
    lua_pushfstring(L, "field '%s': the entities are closed", field);
    luaL_argerror(L, arg, lua_tostring(L, -1));
  }
  return box;
}

static int entities_gc(lua_State* L) {
  EntitiesBox* box = (EntitiesBox*)luaL_checkudata(L, 1, ENTITIES_MT);
  if (box->entities != NULL) charter_entities_free(box->entities);
  box->entities = NULL;
  return 0;
}

static int entities_size(lua_State* L) {
  EntitiesBox* box = (EntitiesBox*)luaL_checkudata(L, 1, ENTITIES_MT);
  if (box->entities == NULL) luaL_argerror(L, 1, "the entities are closed");
  lua_pushinteger(L, (lua_Integer)charter_entities_size(box->entities));
  return 1;
}

static int entities_tostring(lua_State* L) {
  EntitiesBox* box = (EntitiesBox*)luaL_checkudata(L, 1, ENTITIES_MT);
  if (box->entities == NULL) {
    lua_pushliteral(L, "charter.Entities (closed)");
  } else {
    lua_pushfstring(L, "charter.Entities (%d entities)", (int)charter_entities_size(box->entities));
  }
  return 1;
}

/* ---- the request, as JSON -------------------------------------------------------- */

static void buf_reserve(lua_State* L, Buf* b, size_t extra) {
  if (b->len + extra <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra) cap *= 2;
  void* ud = NULL;
  lua_Alloc alloc = lua_getallocf(L, &ud);
  char* data = (char*)alloc(ud, b->data, b->cap, cap);
  if (data == NULL) luaL_error(L, "charter: out of memory");
  b->data = data;
  b->cap = cap;
}

static void buf_add(lua_State* L, Buf* b, const char* s, size_t n) {
  buf_reserve(L, b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

#define buf_lit(L, b, s) buf_add(L, b, s, sizeof(s) - 1)

static void buf_json_string(lua_State* L, Buf* b, const char* s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  buf_reserve(L, b, n + 2);
  b->data[b->len++] = '"';
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    buf_add(L, b, s + start, i - start);
    if (c == '"') {
      buf_lit(L, b, "\\\"");
    } else if (c == '\\') {
      buf_lit(L, b, "\\\\");
    } else {
      char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      buf_add(L, b, esc, 6);
    }
    start = i + 1;
  }
  buf_add(L, b, s + start, n - start);
  buf_lit(L, b, "\"");
}

/* Where a value is, for messages: "context.a.b" or "principal". */
typedef struct {
  int arg;              /* the Lua argument the request table is */
  const char* path[MAX_DEPTH + 2];
  int depth;
} Where;

static int where_error(lua_State* L, const Where* w, const char* what) {
  luaL_Buffer msg;
  luaL_buffinit(L, &msg);
  luaL_addstring(&msg, "field '");
  for (int i = 0; i < w->depth; i++) {
    if (i > 0) luaL_addchar(&msg, '.');
    luaL_addstring(&msg, w->path[i]);
  }
  luaL_addstring(&msg, "': ");
  luaL_addstring(&msg, what);
  luaL_pushresult(&msg);
  return luaL_argerror(L, w->arg, lua_tostring(L, -1));
}

/* Appends the string at `index` of table `t` (or raises). */
typedef void (*Appender)(lua_State* L, Buf* b, const char* s, size_t n);

/* Appends the string field `key` of the table at `t` with `append` (or
 * raises, naming the field). */
static void add_field(lua_State* L, Buf* b, Where* w, int t, const char* key, Appender append) {
  lua_getfield(L, t, key);
  w->path[w->depth++] = key;
  if (lua_type(L, -1) != LUA_TSTRING) {
    lua_pushfstring(L, "expected a string, got %s", luaL_typename(L, -1));
    where_error(L, w, lua_tostring(L, -1));
  }
  size_t n = 0;
  const char* s = lua_tolstring(L, -1, &n);
  append(L, b, s, n);
  w->depth--;
  lua_pop(L, 1);
}

/* The string field `key`, as a JSON string. */
static void add_string_field(lua_State* L, Buf* b, Where* w, int t, const char* key) {
  add_field(L, b, w, t, key, buf_json_string);
}

static int is_array(lua_State* L, int t, size_t* n_out) {
  size_t n = lua_rawlen(L, t);
  size_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    lua_pop(L, 1);
    count++;
    if (count > n) {
      lua_pop(L, 1);
      *n_out = n;
      return 0;
    }
  }
  *n_out = n;
  return count == n && n > 0;
}

/* A context value: boolean, integer, string, {__entity = ...}, {__extn = ...},
 * a sequence (a set) or a table with string keys (a record). */
static void add_value(lua_State* L, Buf* b, Where* w, int index) {
  if (index < 0) index = lua_gettop(L) + index + 1;
  switch (lua_type(L, index)) {
    case LUA_TBOOLEAN:
      if (lua_toboolean(L, index)) buf_lit(L, b, "true"); else buf_lit(L, b, "false");
      return;
    case LUA_TNUMBER: {
      lua_Number x = lua_tonumber(L, index);
#if LUA_VERSION_NUM >= 503
      /* An integer is a Long whatever its value (math.maxinteger as a float
       * would round up out of range). */
      if (!lua_isinteger(L, index) &&
          (!(x == floor(x)) || x < -9223372036854775808.0 || x >= 9223372036854775808.0)) {
#else
      if (!(x == floor(x)) || x < -9223372036854775808.0 || x >= 9223372036854775808.0) {
#endif
        lua_pushfstring(L, "%s is not an integer: Cedar has no floating-point numbers",
                        lua_tostring(L, index));
        where_error(L, w, lua_tostring(L, -1));
      }
      char num[32];
#if LUA_VERSION_NUM >= 503
      int len = lua_isinteger(L, index)
                    ? snprintf(num, sizeof num, "%lld", (long long)lua_tointeger(L, index))
                    : snprintf(num, sizeof num, "%.0f", (double)x);
#else
      int len = snprintf(num, sizeof num, "%.0f", (double)x);
#endif
      buf_add(L, b, num, (size_t)len);
      return;
    }
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L, index, &n);
      buf_json_string(L, b, s, n);
      return;
    }
    case LUA_TTABLE:
      break;
    default:
      lua_pushfstring(L, "a %s cannot be a Cedar value", luaL_typename(L, index));
      where_error(L, w, lua_tostring(L, -1));
  }
  if (w->depth >= MAX_DEPTH) where_error(L, w, "nested too deeply (64 levels at most)");
  luaL_checkstack(L, 4, "charter: context nested too deeply");
  lua_getfield(L, index, "__entity");
  if (!lua_isnil(L, -1)) {
    int e = lua_gettop(L);
    w->path[w->depth++] = "__entity";
    if (!lua_istable(L, e)) where_error(L, w, "expected {type = ..., id = ...}");
    buf_lit(L, b, "{\"__entity\": {\"type\": ");
    add_string_field(L, b, w, e, "type");
    buf_lit(L, b, ", \"id\": ");
    add_string_field(L, b, w, e, "id");
    buf_lit(L, b, "}}");
    w->depth--;
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  lua_getfield(L, index, "__extn");
  if (!lua_isnil(L, -1)) {
    int e = lua_gettop(L);
    w->path[w->depth++] = "__extn";
    if (!lua_istable(L, e)) where_error(L, w, "expected {fn = ..., arg = ...}");
    buf_lit(L, b, "{\"__extn\": {\"fn\": ");
    add_string_field(L, b, w, e, "fn");
    buf_lit(L, b, ", \"arg\": ");
    add_string_field(L, b, w, e, "arg");
    buf_lit(L, b, "}}");
    w->depth--;
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  size_t n = 0;
  if (is_array(L, index, &n)) {
    buf_lit(L, b, "[");
    w->path[w->depth++] = "[]";
    for (size_t i = 1; i <= n; i++) {
      if (i > 1) buf_lit(L, b, ", ");
      lua_rawgeti(L, index, (int)i);
      add_value(L, b, w, -1);
      lua_pop(L, 1);
    }
    w->depth--;
    buf_lit(L, b, "]");
    return;
  }
  /* A record (an empty table is the empty record). */
  buf_lit(L, b, "{");
  int first = 1;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pushfstring(L, "a record's keys are strings, not %s (a set is a sequence 1..n)",
                      luaL_typename(L, -2));
      where_error(L, w, lua_tostring(L, -1));
    }
    if (!first) buf_lit(L, b, ", ");
    first = 0;
    size_t kn = 0;
    const char* k = lua_tolstring(L, -2, &kn);
    buf_json_string(L, b, k, kn);
    buf_lit(L, b, ": ");
    w->path[w->depth++] = k;
    add_value(L, b, w, -1);
    w->depth--;
    lua_pop(L, 1);
  }
  buf_lit(L, b, "}");
}

/* ---- contexts as values (charter_value, no JSON text) ------------------------------ */

/* Keeps a handle just made pending; NULL (box->value_error set) if making
 * it failed. */
static charter_value* keep(EngineBox* box, charter_status status, charter_value** made, charter_error** failed) {
  /* (`made` and `failed` are read here, after the call that set them.) */
  charter_value* v = *made;
  charter_error* error = *failed;
  if (status != CHARTER_OK) {
    if (box->value_error == NULL) box->value_error = error; else charter_error_free(error);
    return NULL;
  }
  box->pending[box->pending_n++] = v;
  return v;
}

/* Adds the pending top (a value just made) to `container`, a set (key NULL)
 * or a record; 0 on success. */
static int add_top(EngineBox* box, charter_value* container, const char* key, size_t key_n) {
  charter_value* v = box->pending[box->pending_n - 1];
  charter_error* error = NULL;
  charter_status status = key == NULL ? charter_value_set_add(container, v, &error)
                                      : charter_value_record_add(container, key, key_n, v, &error);
  if (status != CHARTER_OK) {
    if (box->value_error == NULL) box->value_error = error; else charter_error_free(error);
    return -1;
  }
  box->pending_n--;  /* now the container's */
  return 0;
}

/* The string field `key` of the table at `t` (or raises, naming it, as
 * add_field does). */
static const char* string_field(lua_State* L, Where* w, int t, const char* key, size_t* n) {
  lua_getfield(L, t, key);
  w->path[w->depth++] = key;
  if (lua_type(L, -1) != LUA_TSTRING) {
    lua_pushfstring(L, "expected a string, got %s", luaL_typename(L, -1));
    where_error(L, w, lua_tostring(L, -1));
  }
  const char* s = lua_tolstring(L, -1, n);
  w->depth--;
  lua_pop(L, 1);  /* the table holds it */
  return s;
}

/* A context value as a charter_value, with add_value's rules and messages:
 * boolean, integer, string, {__entity = ...}, {__extn = ...}, a sequence (a
 * set) or a table with string keys (a record). The result is the pending
 * top; NULL when the library refused it (box->value_error). */
static charter_value* lua_value(lua_State* L, EngineBox* box, Where* w, int index) {
  if (index < 0) index = lua_gettop(L) + index + 1;
  charter_value* v = NULL;
  charter_error* error = NULL;
  switch (lua_type(L, index)) {
    case LUA_TBOOLEAN:
      return keep(box, charter_value_bool(lua_toboolean(L, index), &v, &error), &v, &error);
    case LUA_TNUMBER: {
      lua_Number x = lua_tonumber(L, index);
#if LUA_VERSION_NUM >= 503
      /* An integer is a Long whatever its value (math.maxinteger as a float
       * would round up out of range). */
      if (!lua_isinteger(L, index) &&
          (!(x == floor(x)) || x < -9223372036854775808.0 || x >= 9223372036854775808.0)) {
#else
      if (!(x == floor(x)) || x < -9223372036854775808.0 || x >= 9223372036854775808.0) {
#endif
        lua_pushfstring(L, "%s is not an integer: Cedar has no floating-point numbers",
                        lua_tostring(L, index));
        where_error(L, w, lua_tostring(L, -1));
      }
#if LUA_VERSION_NUM >= 503
      int64_t n = lua_isinteger(L, index) ? (int64_t)lua_tointeger(L, index) : (int64_t)x;
#else
      int64_t n = (int64_t)x;
#endif
      return keep(box, charter_value_long(n, &v, &error), &v, &error);
    }
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L, index, &n);
      return keep(box, charter_value_string(s, n, &v, &error), &v, &error);
    }
    case LUA_TTABLE:
      break;
    default:
      lua_pushfstring(L, "a %s cannot be a Cedar value", luaL_typename(L, index));
      where_error(L, w, lua_tostring(L, -1));
  }
  if (w->depth >= MAX_DEPTH) where_error(L, w, "nested too deeply (64 levels at most)");
  luaL_checkstack(L, 4, "charter: context nested too deeply");
  lua_getfield(L, index, "__entity");
  if (!lua_isnil(L, -1)) {
    int e = lua_gettop(L);
    w->path[w->depth++] = "__entity";
    if (!lua_istable(L, e)) where_error(L, w, "expected {type = ..., id = ...}");
    charter_uid uid;
    uid.type = string_field(L, w, e, "type", &uid.type_length);
    uid.id = string_field(L, w, e, "id", &uid.id_length);
    w->depth--;
    v = keep(box, charter_value_entity(&uid, &v, &error), &v, &error);
    lua_pop(L, 1);
    return v;
  }
  lua_pop(L, 1);
  lua_getfield(L, index, "__extn");
  if (!lua_isnil(L, -1)) {
    int e = lua_gettop(L);
    w->path[w->depth++] = "__extn";
    if (!lua_istable(L, e)) where_error(L, w, "expected {fn = ..., arg = ...}");
    size_t fn_n = 0, arg_n = 0;
    const char* fn = string_field(L, w, e, "fn", &fn_n);
    const char* arg = string_field(L, w, e, "arg", &arg_n);
    w->depth--;
    v = keep(box, charter_value_extension(fn, fn_n, arg, arg_n, &v, &error), &v, &error);
    lua_pop(L, 1);
    return v;
  }
  lua_pop(L, 1);
  size_t n = 0;
  if (is_array(L, index, &n)) {
    charter_value* set = keep(box, charter_value_set(&v, &error), &v, &error);
    if (set == NULL) return NULL;
    w->path[w->depth++] = "[]";
    for (size_t i = 1; i <= n; i++) {
      lua_rawgeti(L, index, (int)i);
      if (lua_value(L, box, w, -1) == NULL || add_top(box, set, NULL, 0) != 0) return NULL;
      lua_pop(L, 1);
    }
    w->depth--;
    return set;
  }
  /* A record (an empty table is the empty record). */
  charter_value* record = keep(box, charter_value_record(&v, &error), &v, &error);
  if (record == NULL) return NULL;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pushfstring(L, "a record's keys are strings, not %s (a set is a sequence 1..n)",
                      luaL_typename(L, -2));
      where_error(L, w, lua_tostring(L, -1));
    }
    size_t kn = 0;
    const char* k = lua_tolstring(L, -2, &kn);
    w->path[w->depth++] = k;
    if (lua_value(L, box, w, -1) == NULL || add_top(box, record, k, kn) != 0) {
      lua_pop(L, 2);
      return NULL;
    }
    w->depth--;
    lua_pop(L, 1);
  }
  return record;
}

/* ---- entity references as text ---------------------------------------------------- */

/* Appends `s` as an entity id in Cedar's text form (quotes, backslashes and
 * control bytes escaped). */
static void buf_id_text(lua_State* L, Buf* b, const char* s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != 0x7f && c != '"' && c != '\\') continue;
    buf_add(L, b, s + start, i - start);
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      buf_add(L, b, esc, 2);
    } else {
      char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
      buf_add(L, b, esc, 4);
    }
    start = i + 1;
  }
  buf_add(L, b, s + start, n - start);
}

/* An entity reference, appended as Cedar's text form `Type::"id"`: a string
 * is taken as it is, a table {type = ..., id = ...} is written out. */
static void add_uid_text(lua_State* L, Buf* b, Where* w, int index) {
  int type = lua_type(L, index);
  if (type == LUA_TSTRING) {
    size_t n = 0;
    const char* s = lua_tolstring(L, index, &n);
    buf_add(L, b, s, n);
  } else if (type == LUA_TTABLE) {
    add_field(L, b, w, index, "type", buf_add);
    buf_lit(L, b, "::\"");
    add_field(L, b, w, index, "id", buf_id_text);
    buf_lit(L, b, "\"");
  } else {
    lua_pushfstring(L, "expected an entity reference ('Type::\"id\"' or {type = ..., id = ...}), got %s",
                    luaL_typename(L, index));
    where_error(L, w, lua_tostring(L, -1));
  }
}

/* ---- deciding ------------------------------------------------------------------------ */

/* Pushes a string of the library's that is not NUL-terminated. */
static void push_view(lua_State* L, const char* p, size_t n) {
  if (p == NULL) {
    lua_pushliteral(L, "");
  } else {
    lua_pushlstring(L, p, n);
  }
}

/* engine:authorize{principal = ..., action = ..., resource = ..., context = {...}, entities = e}
 * -> {decision = "allow"|"deny", reasons = {ids}, errors = {{policy = id, message = text}}},
 * or nil and Charter's message when Charter refuses the request (a malformed
 * entity reference, a context value it cannot hold). */
static int engine_authorize(lua_State* L) {
  EngineBox* box = check_engine(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  Buf* b = &box->buf;
  b->len = 0;
  Where w;
  w.arg = 2;
  w.depth = 0;
  size_t offset[3], length[3];

  /* The context, as a charter_value (no JSON text); NULL: none. */
  drop_pending(box);
  charter_value* context = NULL;
  lua_getfield(L, 2, "context");
  if (!lua_isnil(L, -1)) {
    w.path[w.depth++] = "context";
    if (!lua_istable(L, -1)) {
      lua_pushfstring(L, "expected a table, got %s", luaL_typename(L, -2));
      where_error(L, &w, lua_tostring(L, -1));
    }
    context = lua_value(L, box, &w, lua_gettop(L));
    if (context == NULL) {
      charter_error* error = box->value_error;
      box->value_error = NULL;
      drop_pending(box);
      return push_failure(L, error);
    }
    w.depth--;
  }
  lua_pop(L, 1);

  static const char* const names[3] = {"principal", "action", "resource"};
  /* When all three references are tables, their types and ids go to the
   * C API as they are (nothing to escape, nothing to parse back); else each
   * is written in Cedar's text form. */
  int all_tables = 1;
  for (int i = 0; i < 3; i++) {
    lua_getfield(L, 2, names[i]);
    if (lua_type(L, -1) != LUA_TTABLE) all_tables = 0;
    lua_pop(L, 1);
  }
  size_t id_offset[3] = {0, 0, 0}, id_length[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++) {
    offset[i] = b->len;
    lua_getfield(L, 2, names[i]);
    w.path[0] = names[i];
    w.depth = 1;
    if (lua_isnil(L, -1)) where_error(L, &w, "missing");
    if (all_tables) {
      int t = lua_gettop(L);
      add_field(L, b, &w, t, "type", buf_add);
      length[i] = b->len - offset[i];
      id_offset[i] = b->len;
      add_field(L, b, &w, t, "id", buf_add);
      id_length[i] = b->len - id_offset[i];
    } else {
      add_uid_text(L, b, &w, lua_gettop(L));
      length[i] = b->len - offset[i];
    }
    lua_pop(L, 1);
  }
  w.depth = 0;

  /* The entities stay referenced by the request table (argument 2) while
   * the call runs, so they are not collected under it. */
  charter_entities* entities = NULL;
  lua_getfield(L, 2, "entities");
  if (!lua_isnil(L, -1)) entities = check_entities_at(L, lua_gettop(L), 2, "entities")->entities;
  lua_pop(L, 1);

  charter_request* request = NULL;
  charter_error* error = NULL;
  const char* data = b->data;
  charter_status made = CHARTER_OK;
  charter_uid uids[3];
  char parsed[3][256];
  if (all_tables) {
    for (int i = 0; i < 3; i++) {
      uids[i].type = data + offset[i];
      uids[i].type_length = length[i];
      uids[i].id = data + id_offset[i];
      uids[i].id_length = id_length[i];
    }
  } else {
    /* Each reference's text read into a uid; one that does not read (or
     * that is long) is left to charter_request_new, for its message. */
    for (int i = 0; i < 3 && made == CHARTER_OK; i++) {
      made = length[i] < sizeof parsed[i]
                 ? charter_uid_parse(data + offset[i], length[i], parsed[i], sizeof parsed[i], &uids[i], NULL)
                 : CHARTER_ERROR_LIMIT_EXCEEDED;
    }
    if (made != CHARTER_OK) {
      made = charter_request_new(data + offset[0], length[0], data + offset[1], length[1], data + offset[2],
                                 length[2], NULL, 0, &request, &error);
      if (made == CHARTER_OK) {  /* read after all: as uids, from the request */
        for (int i = 0; i < 3; i++) charter_request_uid(request, i, &uids[i]);
      }
    }
  }
  if (made == CHARTER_OK) {
    charter_request* plain = request;
    made = charter_request_new_value(&uids[0], &uids[1], &uids[2], context, NULL, NULL, 0, &request, &error);
    charter_request_free(plain);
  }
  drop_pending(box);
  if (made != CHARTER_OK) return push_failure(L, error);
  charter_status status = charter_authorize(box->engine, entities, request, box->context, &error);
  charter_request_free(request);
  if (status != CHARTER_OK) return push_failure(L, error);

  const charter_eval_context* c = box->context;
  lua_createtable(L, 0, 3);
  if (charter_eval_context_allowed(c)) {
    lua_pushliteral(L, "allow");
  } else {
    lua_pushliteral(L, "deny");
  }
  lua_setfield(L, -2, "decision");
  size_t reasons = charter_eval_context_reason_count(c);
  lua_createtable(L, (int)reasons, 0);
  for (size_t i = 0; i < reasons; i++) {
    size_t n = 0;
    const char* id = charter_eval_context_reason(c, i, &n);
    push_view(L, id, n);
    lua_rawseti(L, -2, (int)i + 1);
  }
  lua_setfield(L, -2, "reasons");
  size_t errors = charter_eval_context_error_count(c);
  lua_createtable(L, (int)errors, 0);
  for (size_t i = 0; i < errors; i++) {
    size_t n = 0, m = 0;
    const char* id = charter_eval_context_error_policy(c, i, &n);
    const char* message = charter_eval_context_error_message(c, i, &m);
    lua_createtable(L, 0, 2);
    push_view(L, id, n);
    lua_setfield(L, -2, "policy");
    push_view(L, message, m);
    lua_setfield(L, -2, "message");
    lua_rawseti(L, -2, (int)i + 1);
  }
  lua_setfield(L, -2, "errors");
  return 1;
}

/* ---- queries ---------------------------------------------------------------------- */

/* Reads the query of `engine:list_allowed{...}` or `engine:residual{...}`
 * (argument 2) and makes it: principal and resource_type (which resources?)
 * or resource and principal_type (which principals?), action, context.
 * Raises on a Lua value of the wrong kind; returns nil and Charter's message
 * (2 values pushed) when Charter refuses the query, else 0 with *out set. */
static int make_query(lua_State* L, EngineBox* box, charter_query** out) {
  luaL_checktype(L, 2, LUA_TTABLE);
  Buf* b = &box->buf;
  b->len = 0;
  Where w;
  w.arg = 2;
  w.depth = 0;
  size_t context_length = 0;
  lua_getfield(L, 2, "context");
  if (!lua_isnil(L, -1)) {
    w.path[w.depth++] = "context";
    if (!lua_istable(L, -1)) {
      lua_pushfstring(L, "expected a table, got %s", luaL_typename(L, -2));
      where_error(L, &w, lua_tostring(L, -1));
    }
    add_value(L, b, &w, lua_gettop(L));
    w.depth--;
    context_length = b->len;
  }
  lua_pop(L, 1);

  lua_getfield(L, 2, "resource_type");
  int resources = !lua_isnil(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, 2, "principal_type");
  int principals = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (resources == principals) {
    w.path[0] = "resource_type";
    w.depth = 1;
    where_error(L, &w, "give resource_type (with principal) or principal_type (with resource), exactly one");
  }
  const char* known_name = resources ? "principal" : "resource";
  const char* type_name = resources ? "resource_type" : "principal_type";
  size_t offset[3], length[3];
  const char* const names[3] = {known_name, "action", type_name};
  for (int i = 0; i < 3; i++) {
    offset[i] = b->len;
    w.path[0] = names[i];
    w.depth = 1;
    if (i == 2) {
      w.depth = 0; /* add_field names the field itself */
      add_field(L, b, &w, 2, type_name, buf_add);
    } else {
      lua_getfield(L, 2, names[i]);
      if (lua_isnil(L, -1)) where_error(L, &w, "missing");
      add_uid_text(L, b, &w, lua_gettop(L));
      lua_pop(L, 1);
    }
    length[i] = b->len - offset[i];
  }
  const char* d = b->data;
  const char* context = context_length ? d : NULL;
  charter_error* error = NULL;
  charter_status status =
      resources ? charter_query_resources(box->engine, d + offset[0], length[0], d + offset[1], length[1],
                                          d + offset[2], length[2], context, context_length, out, &error)
                : charter_query_principals(box->engine, d + offset[2], length[2], d + offset[1], length[1],
                                           d + offset[0], length[0], context, context_length, out, &error);
  if (status != CHARTER_OK) return push_failure(L, error);
  return 0;
}

/* The `entities` field of argument 2 (NULL when absent). The table keeps
 * it referenced while the call runs. */
static charter_entities* query_entities(lua_State* L) {
  charter_entities* entities = NULL;
  lua_getfield(L, 2, "entities");
  if (!lua_isnil(L, -1)) entities = check_entities_at(L, lua_gettop(L), 2, "entities")->entities;
  lua_pop(L, 1);
  return entities;
}

/* An optional non-negative integer field of argument 2. */
static size_t size_field(lua_State* L, const char* key, size_t absent, size_t least) {
  size_t out = absent;
  lua_getfield(L, 2, key);
  if (!lua_isnil(L, -1)) {
    lua_Number n = lua_tonumber(L, -1);
    if (lua_type(L, -1) != LUA_TNUMBER || !(n >= (lua_Number)least) || n > 9007199254740992.0 ||
        n != (lua_Number)(size_t)n) {
      Where w;
      w.arg = 2;
      w.path[0] = key;
      w.depth = 1;
      lua_pushfstring(L, "expected an integer of at least %d", (int)least);
      where_error(L, &w, lua_tostring(L, -1));
    }
    out = (size_t)n;
  }
  lua_pop(L, 1);
  return out;
}

/* engine:list_allowed{principal = ..., action = ..., resource_type = T, context = {...}, entities = e
 *                     [, start = cursor, limit = n]}
 * (or resource = ... with principal_type = T: who may)
 * -> {{uid = {type = ..., id = ...}, reasons = {ids}, errors = {{policy, message}}}, ...}, next
 * Every match when `limit` is absent; else up to `limit` from cursor
 * `start` (0 by default), and `next`, the cursor of the next page, or nil
 * when every candidate has been examined. nil and a message when Charter
 * refuses the query. */
static int engine_list_allowed(lua_State* L) {
  EngineBox* box = check_engine(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  size_t start = size_field(L, "start", 0, 0);
  size_t limit = size_field(L, "limit", (size_t)-1, 1);
  charter_entities* entities = query_entities(L);
  charter_query* query = NULL;
  int failed = make_query(L, box, &query);
  if (failed) return failed;
  charter_match_page* page = NULL;
  charter_error* error = NULL;
  charter_status status = charter_list_allowed_page(box->engine, entities, query, start, limit, &page, &error);
  charter_query_free(query);
  if (status != CHARTER_OK) return push_failure(L, error);
  size_t count = charter_match_page_count(page);
  lua_createtable(L, (int)count, 0);
  for (size_t i = 0; i < count; i++) {
    const charter_match* m = charter_match_page_at(page, i);
    size_t n = 0;
    const char* p = NULL;
    lua_createtable(L, 0, 3);
    lua_createtable(L, 0, 2);
    p = charter_match_type(m, &n);
    push_view(L, p, n);
    lua_setfield(L, -2, "type");
    p = charter_match_id(m, &n);
    push_view(L, p, n);
    lua_setfield(L, -2, "id");
    lua_setfield(L, -2, "uid");
    size_t reasons = charter_match_reason_count(m);
    lua_createtable(L, (int)reasons, 0);
    for (size_t k = 0; k < reasons; k++) {
      p = charter_match_reason(m, k, &n);
      push_view(L, p, n);
      lua_rawseti(L, -2, (int)k + 1);
    }
    lua_setfield(L, -2, "reasons");
    size_t errors = charter_match_error_count(m);
    lua_createtable(L, (int)errors, 0);
    for (size_t k = 0; k < errors; k++) {
      size_t mn = 0;
      const char* message = charter_match_error_message(m, k, &mn);
      p = charter_match_error_policy(m, k, &n);
      lua_createtable(L, 0, 2);
      push_view(L, p, n);
      lua_setfield(L, -2, "policy");
      push_view(L, message, mn);
      lua_setfield(L, -2, "message");
      lua_rawseti(L, -2, (int)k + 1);
    }
    lua_setfield(L, -2, "errors");
    lua_rawseti(L, -2, (int)i + 1);
  }
  size_t next = charter_match_page_next(page);
  charter_match_page_free(page);
  if (next == 0) {
    lua_pushnil(L);
  } else {
    lua_pushinteger(L, (lua_Integer)next);
  }
  return 2;
}

/* engine:residual{principal = ..., action = ..., resource_type = T, context = {...}, entities = e}
 * (or resource with principal_type)
 * -> {outcome = "allow"|"deny"|"depends", condition = text, condition_json = JSON text,
 *     exact = bool, label_selector = text or nil, json = text, text = text},
 * or nil and a message. */
static int engine_residual(lua_State* L) {
  EngineBox* box = check_engine(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  charter_entities* entities = query_entities(L);
  charter_query* query = NULL;
  int failed = make_query(L, box, &query);
  if (failed) return failed;
  charter_residual* r = NULL;
  charter_error* error = NULL;
  charter_status status = charter_residual_new(box->engine, entities, query, &r, &error);
  charter_query_free(query);
  if (status != CHARTER_OK) return push_failure(L, error);
  lua_createtable(L, 0, 7);
  switch (charter_residual_get_outcome(r)) {
    case CHARTER_RESIDUAL_ALLOW: lua_pushliteral(L, "allow"); break;
    case CHARTER_RESIDUAL_DENY: lua_pushliteral(L, "deny"); break;
    default: lua_pushliteral(L, "depends"); break;
  }
  lua_setfield(L, -2, "outcome");
  size_t n = 0;
  const char* p = charter_residual_condition(r, &n);
  push_view(L, p, n);
  lua_setfield(L, -2, "condition");
  p = charter_residual_condition_json(r, &n);
  push_view(L, p, n);
  lua_setfield(L, -2, "condition_json");
  lua_pushboolean(L, charter_residual_exact(r));
  lua_setfield(L, -2, "exact");
  p = charter_residual_label_selector(r, &n);
  if (p != NULL) {
    lua_pushlstring(L, p, n);
    lua_setfield(L, -2, "label_selector");
  }
  p = charter_residual_json(r, &n);
  push_view(L, p, n);
  lua_setfield(L, -2, "json");
  p = charter_residual_text(r, &n);
  push_view(L, p, n);
  lua_setfield(L, -2, "text");
  charter_residual_free(r);
  return 1;
}

/* entities:with(json): a new store of these entities and those of `json`
 * (for the entities of one request), or nil and a message. */
static int entities_with(lua_State* L) {
  EntitiesBox* base = (EntitiesBox*)luaL_checkudata(L, 1, ENTITIES_MT);
  if (base->entities == NULL) luaL_argerror(L, 1, "the entities are closed");
  size_t json_len = 0;
  const char* json = luaL_checklstring(L, 2, &json_len);
  EntitiesBox* box = (EntitiesBox*)lua_newuserdata(L, sizeof(EntitiesBox));
  box->entities = NULL;
  luaL_getmetatable(L, ENTITIES_MT);
  lua_setmetatable(L, -2);
  charter_error* error = NULL;
  if (charter_entities_extend(base->entities, json, json_len, &box->entities, &error) != CHARTER_OK) {
    return push_failure(L, error);
  }
  return 1;
}

/* ---- the module ------------------------------------------------------------------------ */

static const luaL_Reg engine_methods[] = {
    {"authorize", engine_authorize},
    {"list_allowed", engine_list_allowed},
    {"residual", engine_residual},
    {"policy_count", engine_policy_count},
    {"policy_ids", engine_policy_ids},
    {"close", engine_gc},
    {"__gc", engine_gc},
    {"__tostring", engine_tostring},
    {NULL, NULL},
};

static const luaL_Reg entities_methods[] = {
    {"size", entities_size},
    {"with", entities_with},
    {"close", entities_gc},
    {"__gc", entities_gc},
    {"__tostring", entities_tostring},
    {"__len", entities_size},
    {NULL, NULL},
};

static const luaL_Reg module_functions[] = {
    {"compile", l_compile},
    {"load_bundle", l_load_bundle},
    {"entities", l_entities},
    {"version", l_version},
    {NULL, NULL},
};

/* A metatable that is its own __index, holding `methods`. */
static void new_class(lua_State* L, const char* name, const luaL_Reg* methods) {
  luaL_newmetatable(L, name);
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "__index");
  luaL_setfuncs_compat(L, methods);
  lua_pop(L, 1);
}

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int luaopen_charter(lua_State* L) {
  new_class(L, ENGINE_MT, engine_methods);
  new_class(L, ENTITIES_MT, entities_methods);
  lua_newtable(L);
  luaL_setfuncs_compat(L, module_functions);
  lua_pushstring(L, charter_version());
  lua_setfield(L, -2, "_VERSION");
  return 1;
}
