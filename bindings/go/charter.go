// Package charter is Charter's Go binding: the policy engine of
// engine/include/charter/ through its C API (bindings/c/include/charter.h),
// with cgo and the standard library only.
//
//	engine, err := charter.Compile(policies, schema)   // or charter.LoadBundle(path)
//	entities, err := charter.ParseEntities(entitiesJSON, schema)
//	d, err := engine.Authorize(charter.Request{
//		Principal: charter.UID("User", "alice"),
//		Action:    charter.UID("Action", "submitTask"),
//		Resource:  charter.UID("Task", "t1"),
//		Context:   map[string]any{"gpus": 4},
//	}, entities)
//	if d.Allowed { ... }
//
// Engines, entity stores and engine handles are immutable (a handle's swap
// is atomic) and safe for concurrent use; each call takes an evaluation
// context from a pool, so concurrent calls never share one. Their C memory
// is freed by Close, or by a finalizer when they become unreachable.
//
// The package builds against libcharter through pkg-config (`charter.pc`):
// set PKG_CONFIG_PATH to PREFIX/lib/pkgconfig of an install, or to
// BUILD/bindings/c/pkgconfig for a build tree.
package charter

/*
#cgo pkg-config: charter
#include <stdlib.h>
#include <charter.h>

// A slot: what one decision needs, in C memory, so that a decision is one
// cgo call whose only arguments are C pointers (no Go pointer crosses, and
// cgo checks nothing): the evaluation context, a buffer the request's
// strings are copied into, and where the decision's results are left.
enum { CHARTER_GO_VIEWS = 16 };
typedef struct {
  charter_eval_context* context;
  char* buf;
  size_t cap;
  size_t off[7], len[7];  // principal type, id; action type, id; resource type, id; context
  int context_kind;       // the context's bytes: 0 JSON text, 1 a value (charter_go_read_value)
  charter_error* error;
  int allowed;
  size_t reasons, errors;
  const char* ptrs[CHARTER_GO_VIEWS];  // reasons, then (policy, message) pairs
  size_t lens[CHARTER_GO_VIEWS];
} charter_go_slot;

static charter_go_slot* charter_go_slot_new(charter_error** error) {
  charter_go_slot* s = (charter_go_slot*)calloc(1, sizeof(charter_go_slot));
  if (s == NULL) return NULL;
  if (charter_eval_context_new(&s->context, error) != CHARTER_OK) {
    free(s);
    return NULL;
  }
  return s;
}

static void charter_go_slot_free(charter_go_slot* s) {
  if (s == NULL) return;
  charter_eval_context_free(s->context);
  charter_error_free(s->error);
  free(s->buf);
  free(s);
}

// Grows the buffer to at least n bytes; 0 when out of memory.
static int charter_go_slot_reserve(charter_go_slot* s, size_t n) {
  if (n <= s->cap) return 1;
  size_t cap = s->cap ? s->cap : 256;
  while (cap < n) cap *= 2;
  char* p = (char*)realloc(s->buf, cap);
  if (p == NULL) return 0;
  s->buf = p;
  s->cap = cap;
  return 1;
}

// A context value, encoded by the Go side (encodeValue) so that a decision
// stays one cgo call: a kind byte, then 'b' a byte; 'l' 8 bytes, little
// endian; 's' a string; 'e' type and id; 'x' fn and arg; '[' a count and
// the elements; '{' a count and (key, value) pairs. A string or a count is
// 4 bytes, little endian, then its bytes.
static uint32_t charter_go_u32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static charter_status charter_go_read_value(const unsigned char** at, const unsigned char* end, int depth,
                                            charter_value** out, charter_error** error) {
  const unsigned char* p = *at;
  charter_status st = CHARTER_ERROR_INTERNAL;
  if (p >= end || depth > 100) return CHARTER_ERROR_INTERNAL;
  unsigned char kind = *p++;
  switch (kind) {
    case 'b':
      st = charter_value_bool(*p++, out, error);
      break;
    case 'l': {
      uint64_t n = 0;
      for (int i = 7; i >= 0; i--) n = n << 8 | p[i];
      p += 8;
      st = charter_value_long((int64_t)n, out, error);
      break;
    }
    case 's': {
      uint32_t n = charter_go_u32(p);
      st = charter_value_string((const char*)p + 4, n, out, error);
      p += 4 + n;
      break;
    }
    case 'e':
    case 'x': {
      uint32_t n1 = charter_go_u32(p);
      const char* s1 = (const char*)p + 4;
      p += 4 + n1;
      uint32_t n2 = charter_go_u32(p);
      const char* s2 = (const char*)p + 4;
      p += 4 + n2;
      if (kind == 'x') {
        st = charter_value_extension(s1, n1, s2, n2, out, error);
      } else {
        charter_uid uid = {s1, n1, s2, n2};
        st = charter_value_entity(&uid, out, error);
      }
      break;
    }
    case '[':
    case '{': {
      uint32_t n = charter_go_u32(p);
      p += 4;
      charter_value* c = NULL;
      st = kind == '[' ? charter_value_set(&c, error) : charter_value_record(&c, error);
      for (uint32_t i = 0; i < n && st == CHARTER_OK; i++) {
        const char* key = NULL;
        uint32_t kn = 0;
        if (kind == '{') {
          kn = charter_go_u32(p);
          key = (const char*)p + 4;
          p += 4 + kn;
        }
        charter_value* v = NULL;
        st = charter_go_read_value(&p, end, depth + 1, &v, error);
        if (st != CHARTER_OK) break;
        st = kind == '[' ? charter_value_set_add(c, v, error) : charter_value_record_add(c, key, kn, v, error);
        if (st != CHARTER_OK) charter_value_free(v);
      }
      if (st != CHARTER_OK) {
        charter_value_free(c);
      } else {
        *out = c;
      }
      break;
    }
  }
  *at = p;
  return st;
}

// One decision: makes the request from the slot's strings, decides it with
// the engine (or the handle), frees it, and leaves up to CHARTER_GO_VIEWS
// reasons and errors as views into the context (valid until its next use).
static charter_status charter_go_decide(const charter_engine* engine, const charter_engine_handle* handle,
                                        const charter_entities* entities, charter_go_slot* s) {
  const char* b = s->buf;
  charter_uid p = {b + s->off[0], s->len[0], b + s->off[1], s->len[1]};
  charter_uid a = {b + s->off[2], s->len[2], b + s->off[3], s->len[3]};
  charter_uid r = {b + s->off[4], s->len[4], b + s->off[5], s->len[5]};
  charter_request* request = NULL;
  s->error = NULL;
  charter_status st;
  if (s->context_kind == 1) {
    const unsigned char* at = (const unsigned char*)b + s->off[6];
    charter_value* context = NULL;
    st = charter_go_read_value(&at, at + s->len[6], 0, &context, &s->error);
    if (st != CHARTER_OK) return st;
    st = charter_request_new_value(&p, &a, &r, context, NULL, NULL, 0, &request, &s->error);
    charter_value_free(context);
  } else {
    st = charter_request_new_uids(&p, &a, &r, s->len[6] ? b + s->off[6] : NULL, s->len[6], &request, &s->error);
  }
  if (st != CHARTER_OK) return st;
  st = handle != NULL ? charter_engine_handle_authorize(handle, entities, request, s->context, &s->error)
                      : charter_authorize(engine, entities, request, s->context, &s->error);
  charter_request_free(request);
  if (st != CHARTER_OK) return st;
  s->allowed = charter_eval_context_allowed(s->context);
  s->reasons = charter_eval_context_reason_count(s->context);
  s->errors = charter_eval_context_error_count(s->context);
  size_t k = 0;
  for (size_t i = 0; i < s->reasons && k < CHARTER_GO_VIEWS; i++, k++) {
    s->ptrs[k] = charter_eval_context_reason(s->context, i, &s->lens[k]);
  }
  for (size_t i = 0; i < s->errors && k + 1 < CHARTER_GO_VIEWS; i++, k += 2) {
    s->ptrs[k] = charter_eval_context_error_policy(s->context, i, &s->lens[k]);
    s->ptrs[k + 1] = charter_eval_context_error_message(s->context, i, &s->lens[k + 1]);
  }
  return CHARTER_OK;
}

// The same for a request in Charter's request JSON.
static charter_status charter_go_decide_json(const charter_engine* engine, const charter_entities* entities,
                                             charter_eval_context* context, const char* json, size_t n,
                                             charter_error** error) {
  charter_request* request = NULL;
  charter_status s = charter_request_from_json(json, n, &request, error);
  if (s != CHARTER_OK) return s;
  s = charter_authorize(engine, entities, request, context, error);
  charter_request_free(request);
  return s;
}
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Version is the loaded library's version, "MAJOR.MINOR.PATCH".
func Version() string { return C.GoString(C.charter_version()) }

// Status says what kind of failure an Error is.
type Status int

const (
	StatusInvalidArgument  Status = C.CHARTER_ERROR_INVALID_ARGUMENT
	StatusNotFound         Status = C.CHARTER_ERROR_NOT_FOUND
	StatusPermissionDenied Status = C.CHARTER_ERROR_PERMISSION_DENIED
	StatusLimitExceeded    Status = C.CHARTER_ERROR_LIMIT_EXCEEDED
	StatusNullHandle       Status = C.CHARTER_ERROR_NULL_HANDLE
	StatusBadHandle        Status = C.CHARTER_ERROR_BAD_HANDLE
	StatusOutOfMemory      Status = C.CHARTER_ERROR_OUT_OF_MEMORY
	StatusIO               Status = C.CHARTER_ERROR_IO
	StatusInternal         Status = C.CHARTER_ERROR_INTERNAL
)

func (s Status) String() string { return C.GoString(C.charter_status_name(C.charter_status(s))) }

// Error is a failure Charter reports: Message is one line,
// "SOURCE:LINE:COL: what is wrong" when the fault is in an input; Source,
// Line and Column give that place (Line 0: none); Detail is the full
// rendering, with source lines and underlines, for policies and schemas;
// Code is the fault's diagnostic code ("CH0101", docs/diagnostics.md), or
// "" when it has none.
type Error struct {
	Status  Status
	Message string
	Detail  string
	Source  string
	Line    int
	Column  int
	Code    string
}

func (e *Error) Error() string { return "charter: " + e.Message }

// takeError turns a C error into an *Error and frees it.
func takeError(s C.charter_status, e *C.charter_error) error {
	if e == nil {
		return &Error{Status: Status(s), Message: C.GoString(C.charter_status_name(s))}
	}
	defer C.charter_error_free(e)
	var n C.size_t
	out := &Error{Status: Status(s)}
	out.Message = C.GoStringN(C.charter_error_message(e, &n), C.int(n))
	out.Detail = C.GoStringN(C.charter_error_detail(e, &n), C.int(n))
	out.Source = C.GoStringN(C.charter_error_source(e, &n), C.int(n))
	out.Line = int(C.charter_error_line(e))
	out.Column = int(C.charter_error_column(e))
	out.Code = C.GoStringN(C.charter_error_code(e, &n), C.int(n))
	return out
}

// cstr gives C a view of a Go string's bytes for the length of one call (C
// keeps no pointer to it); an empty string is NULL.
func cstr(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	h := (*reflect.StringHeader)(unsafe.Pointer(&s))
	return (*C.char)(unsafe.Pointer(h.Data)), C.size_t(len(s))
}

// optional is cstr, but a NULL pointer only for "none" (schema == "" is no
// schema).
func optional(s string) (*C.char, C.size_t) { return cstr(s) }

// ---- engines ------------------------------------------------------------------------

// Engine is a verified policy set. Safe for concurrent use.
type Engine struct {
	mu       sync.RWMutex // Close against calls in flight
	p        *C.charter_engine
	contexts contextPool
}

func newEngine(p *C.charter_engine) *Engine {
	e := &Engine{p: p}
	runtime.SetFinalizer(e, (*Engine).Close)
	return e
}

// Compile compiles a policy set (Cedar text or Cedar's JSON policy format);
// with a schema (Cedar's schema text or JSON; "" for none) the policies are
// validated against it first.
func Compile(policies, schema string) (*Engine, error) {
	var p *C.charter_engine
	var e *C.charter_error
	text, n := cstr(policies)
	var st C.charter_status
	if schema == "" {
		st = C.charter_engine_compile(text, n, nil, 0, &p, &e)
	} else {
		s, sn := optional(schema)
		st = C.charter_engine_compile(text, n, s, sn, &p, &e)
	}
	runtime.KeepAlive(policies)
	runtime.KeepAlive(schema)
	if st != C.CHARTER_OK {
		return nil, takeError(st, e)
	}
	return newEngine(p), nil
}

// LoadBundle reads and verifies a bundle file (`charter build`'s output).
func LoadBundle(path string) (*Engine, error) {
	var p *C.charter_engine
	var e *C.charter_error
	s, n := cstr(path)
	st := C.charter_engine_load_bundle(s, n, &p, &e)
	runtime.KeepAlive(path)
	if st != C.CHARTER_OK {
		return nil, takeError(st, e)
	}
	return newEngine(p), nil
}

// PolicyCount is the number of policies (0 after Close).
func (e *Engine) PolicyCount() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return int(C.charter_engine_policy_count(e.p))
}

// PolicyIDs is the policies' ids in policy-set order (nil after Close).
func (e *Engine) PolicyIDs() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.p == nil {
		return nil
	}
	count := int(C.charter_engine_policy_count(e.p))
	ids := make([]string, count)
	for i := range ids {
		var n C.size_t
		ids[i] = C.GoStringN(C.charter_engine_policy_id(e.p, C.size_t(i), &n), C.int(n))
	}
	return ids
}

// Close frees the engine's C memory; calls after it fail with
// StatusNullHandle. Calls in flight finish first.
func (e *Engine) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.p != nil {
		C.charter_engine_free(e.p)
		e.p = nil
	}
	e.contexts.drain()
}

// ---- entities -----------------------------------------------------------------------

// Entities is an immutable entity store. Safe for concurrent use.
type Entities struct {
	mu sync.RWMutex
	p  *C.charter_entities
}

func newEntities(p *C.charter_entities) *Entities {
	s := &Entities{p: p}
	runtime.SetFinalizer(s, (*Entities).Close)
	return s
}

// ParseEntities reads Cedar's JSON entity format; with a schema ("" for
// none), as Cedar reads it with one.
func ParseEntities(entitiesJSON, schema string) (*Entities, error) {
	var p *C.charter_entities
	var e *C.charter_error
	j, n := cstr(entitiesJSON)
	if j == nil {
		j, n = cstr("[]")
	}
	var st C.charter_status
	if schema == "" {
		st = C.charter_entities_from_json(j, n, nil, 0, &p, &e)
	} else {
		s, sn := optional(schema)
		st = C.charter_entities_from_json(j, n, s, sn, &p, &e)
	}
	runtime.KeepAlive(entitiesJSON)
	runtime.KeepAlive(schema)
	if st != C.CHARTER_OK {
		return nil, takeError(st, e)
	}
	return newEntities(p), nil
}

// Extend is a new store of these entities and those of entitiesJSON (an
// array), for entities that belong to one request.
func (s *Entities) Extend(entitiesJSON string) (*Entities, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var p *C.charter_entities
	var e *C.charter_error
	j, n := cstr(entitiesJSON)
	st := C.charter_entities_extend(s.p, j, n, &p, &e)
	runtime.KeepAlive(entitiesJSON)
	if st != C.CHARTER_OK {
		return nil, takeError(st, e)
	}
	return newEntities(p), nil
}

// Len is the number of entities with data.
func (s *Entities) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return int(C.charter_entities_size(s.p))
}

// Close frees the store's C memory; calls after it fail.
func (s *Entities) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != nil {
		C.charter_entities_free(s.p)
		s.p = nil
	}
}

// ---- requests and decisions -----------------------------------------------------------

// EntityUID names an entity: its type (with namespaces, "NS::User") and id.
type EntityUID struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// UID is EntityUID{typ, id}.
func UID(typ, id string) EntityUID { return EntityUID{Type: typ, ID: id} }

// Request is one request. Context is a record in Cedar's JSON value
// encoding once marshalled by encoding/json (bool, integers, strings,
// slices as sets, maps as records, {"__entity": {...}} and
// {"__extn": {"fn": ..., "arg": ...}}); ContextJSON, when not empty, is
// used instead, as it is.
type Request struct {
	Principal, Action, Resource EntityUID
	Context                     map[string]any
	ContextJSON                 string
}

// PolicyError is a policy whose evaluation erred (and was skipped).
type PolicyError struct {
	PolicyID string
	Message  string
}

// Decision is the answer to one request.
type Decision struct {
	Allowed bool
	// The determining policies: the satisfied forbids when any is, else the
	// satisfied permits, in policy-set order.
	Reasons []string
	Errors  []PolicyError
}

// String is "allow" or "deny".
func (d Decision) String() string {
	if d.Allowed {
		return "allow"
	}
	return "deny"
}

// contextPool holds slots (an evaluation context and its buffers, in C
// memory), one per concurrent call.
type contextPool struct {
	mu   sync.Mutex
	free []*C.charter_go_slot
}

func (p *contextPool) get() (*C.charter_go_slot, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return s, nil
	}
	p.mu.Unlock()
	var e *C.charter_error
	s := C.charter_go_slot_new(&e)
	if s == nil {
		if e == nil {
			return nil, &Error{Status: StatusOutOfMemory, Message: "out of memory"}
		}
		return nil, takeError(C.CHARTER_ERROR_OUT_OF_MEMORY, e)
	}
	return s, nil
}

func (p *contextPool) put(s *C.charter_go_slot) {
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
}

func (p *contextPool) drain() {
	p.mu.Lock()
	for _, s := range p.free {
		C.charter_go_slot_free(s)
	}
	p.free = nil
	p.mu.Unlock()
}

// contextText is the request's context for the C side: an encoded value
// (isValue true; see charter_go_read_value) made from Context directly, or
// JSON text: ContextJSON, or Context marshalled by encoding/json when it
// holds what the encoding does not say exactly as encoding/json would (a
// float, a struct other than EntityUID, a pointer, a json.Marshaler, an
// integer beyond int64, a string that is not UTF-8, `__expr`, an `__extn`
// whose argument is not a string). buf is scratch space.
func contextText(r *Request, buf *[]byte) (string, bool, error) {
	if r.ContextJSON != "" {
		return r.ContextJSON, false, nil
	}
	if r.Context == nil {
		return "", false, nil
	}
	if b, ok := encodeRecord((*buf)[:0], r.Context, 0); ok {
		*buf = b
		return "", true, nil
	}
	b, err := json.Marshal(r.Context)
	if err != nil {
		return "", false, &Error{Status: StatusInvalidArgument, Message: "the context: " + err.Error()}
	}
	return string(b), false, nil
}

// maxValueDepth: deeper values go as JSON, whose reader says where the
// limit is.
const maxValueDepth = 60

func appendU32(b []byte, n int) []byte {
	return append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
}

func appendStr(b []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) || len(s) > math.MaxUint32/2 {
		return b, false // encoding/json writes U+FFFD for bad bytes: leave it that
	}
	return append(appendU32(b, len(s)), s...), true
}

func appendLong(b []byte, n int64) []byte {
	u := uint64(n)
	return append(b, 'l', byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32), byte(u>>40), byte(u>>48),
		byte(u>>56))
}

// stringOf is v as a string when it is one.
func stringOf(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// member is m[key] for the two map types a context's records come as.
func member(m any, key string) (any, bool) {
	switch t := m.(type) {
	case map[string]any:
		v, ok := t[key]
		return v, ok
	case map[string]string:
		v, ok := t[key]
		return v, ok
	}
	return nil, false
}

// plainOnly reports whether a record's escapes (if any) are ones the
// encoding says as encoding/json's text reads: no `__expr`, and an
// extension call {"fn": s, ...} (itself or under `__extn`) has a string
// "arg".
func plainOnly(m any) bool {
	if _, ok := member(m, "__expr"); ok {
		return false
	}
	inner, _ := member(m, "__extn")
	for _, c := range []any{m, inner} {
		fn, _ := member(c, "fn")
		if _, ok := stringOf(fn); !ok {
			continue
		}
		arg, has := member(c, "arg")
		if _, ok := stringOf(arg); !ok && (has || hasKey(c, "args")) {
			return false
		}
	}
	return true
}

func hasKey(m any, key string) bool {
	_, ok := member(m, key)
	return ok
}

// encodeRecord appends a record's encoding; false: use JSON instead.
func encodeRecord(b []byte, m map[string]any, depth int) ([]byte, bool) {
	b = appendU32(append(b, '{'), len(m))
	ok := true
	for k, v := range m {
		if b, ok = appendStr(b, k); !ok {
			return b, false
		}
		if b, ok = encodeValue(b, v, depth+1); !ok {
			return b, false
		}
	}
	return b, true
}

// encodeValue appends v's encoding; false: use JSON instead.
func encodeValue(b []byte, v any, depth int) ([]byte, bool) {
	if depth > maxValueDepth {
		return b, false
	}
	ok := true
	switch t := v.(type) {
	case bool:
		if t {
			return append(b, 'b', 1), true
		}
		return append(b, 'b', 0), true
	case string:
		return appendStr(append(b, 's'), t)
	case int:
		return appendLong(b, int64(t)), true
	case int64:
		return appendLong(b, t), true
	case int32:
		return appendLong(b, int64(t)), true
	case int16:
		return appendLong(b, int64(t)), true
	case int8:
		return appendLong(b, int64(t)), true
	case uint8:
		return appendLong(b, int64(t)), true
	case uint16:
		return appendLong(b, int64(t)), true
	case uint32:
		return appendLong(b, int64(t)), true
	case uint:
		if uint64(t) > math.MaxInt64 {
			return b, false
		}
		return appendLong(b, int64(t)), true
	case uint64:
		if t > math.MaxInt64 {
			return b, false
		}
		return appendLong(b, int64(t)), true
	case EntityUID:
		// encoding/json writes {"type": ..., "id": ...}: a record (an entity
		// where a schema expects one), and so is this.
		b = appendU32(append(b, '{'), 2)
		for _, kv := range [2][2]string{{"type", t.Type}, {"id", t.ID}} {
			b, _ = appendStr(b, kv[0])
			if b, ok = appendStr(append(b, 's'), kv[1]); !ok {
				return b, false
			}
		}
		return b, true
	case []any:
		b = appendU32(append(b, '['), len(t))
		for _, e := range t {
			if b, ok = encodeValue(b, e, depth+1); !ok {
				return b, false
			}
		}
		return b, true
	case []string:
		b = appendU32(append(b, '['), len(t))
		for _, e := range t {
			if b, ok = appendStr(append(b, 's'), e); !ok {
				return b, false
			}
		}
		return b, true
	case map[string]string:
		if !plainOnly(t) {
			return b, false
		}
		if len(t) == 1 {
			if b2, done, ok := escape(b, t); done {
				return b2, ok
			}
		}
		b = appendU32(append(b, '{'), len(t))
		for k, e := range t {
			if b, ok = appendStr(b, k); !ok {
				return b, false
			}
			if b, ok = appendStr(append(b, 's'), e); !ok {
				return b, false
			}
		}
		return b, true
	case map[string]any:
		if !plainOnly(t) {
			return b, false
		}
		if len(t) == 1 {
			if b2, done, ok := escape(b, t); done {
				return b2, ok
			}
		}
		return encodeRecord(b, t, depth)
	}
	return b, false
}

// escape appends a one-key record in the shape of Cedar's `__extn` or
// `__entity` escape as the value it stands for (done); else nothing.
func escape(b []byte, m any) (out []byte, done bool, ok bool) {
	if inner, has := member(m, "__extn"); has {
		fn, _ := member(inner, "fn")
		arg, _ := member(inner, "arg")
		f, ok1 := stringOf(fn)
		a, ok2 := stringOf(arg)
		if ok1 && ok2 {
			b = append(b, 'x')
			if b, ok = appendStr(b, f); !ok {
				return b, true, false
			}
			b, ok = appendStr(b, a)
			return b, true, ok
		}
	}
	if inner, has := member(m, "__entity"); has {
		n := 0
		switch t := inner.(type) {
		case map[string]any:
			n = len(t)
		case map[string]string:
			n = len(t)
		}
		typ, _ := member(inner, "type")
		id, _ := member(inner, "id")
		t, ok1 := stringOf(typ)
		i, ok2 := stringOf(id)
		if n >= 2 && ok1 && ok2 {
			b = append(b, 'e')
			if b, ok = appendStr(b, t); !ok {
				return b, true, false
			}
			b, ok = appendStr(b, i)
			return b, true, ok
		}
	}
	return b, false, true
}

// scratch holds the buffers contexts are encoded into.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

func entitiesPointer(s *Entities) *C.charter_entities {
	if s == nil {
		return nil
	}
	return s.p
}

// fill copies the request's strings into the slot's C buffer, and the
// context: its JSON text, or its encoded value.
func fill(s *C.charter_go_slot, r *Request, context string, value []byte) error {
	parts := [7]string{r.Principal.Type, r.Principal.ID, r.Action.Type, r.Action.ID, r.Resource.Type,
		r.Resource.ID, context}
	total := len(value)
	for _, p := range parts {
		total += len(p)
	}
	if C.size_t(total) > s.cap && C.charter_go_slot_reserve(s, C.size_t(total)) == 0 {
		return &Error{Status: StatusOutOfMemory, Message: "out of memory"}
	}
	var buf []byte
	if s.cap > 0 {
		buf = unsafe.Slice((*byte)(unsafe.Pointer(s.buf)), int(s.cap))
	}
	off := 0
	for i, p := range parts {
		copy(buf[off:], p)
		s.off[i] = C.size_t(off)
		s.len[i] = C.size_t(len(p))
		off += len(p)
	}
	if len(value) > 0 {
		copy(buf[off:], value)
		s.len[6] = C.size_t(len(value))
	}
	return nil
}

// decide runs one decision with engine or handle.
func decide(engine *C.charter_engine, handle *C.charter_engine_handle, pool *contextPool, r *Request,
	entities *Entities) (Decision, error) {
	buf := scratch.Get().(*[]byte)
	defer scratch.Put(buf)
	ctxText, isValue, err := contextText(r, buf)
	if err != nil {
		return Decision{}, err
	}
	if entities != nil {
		entities.mu.RLock()
		defer entities.mu.RUnlock()
		if entities.p == nil {
			return Decision{}, &Error{Status: StatusNullHandle, Message: "the entities are closed"}
		}
	}
	s, err := pool.get()
	if err != nil {
		return Decision{}, err
	}
	defer pool.put(s)
	var value []byte
	if isValue {
		value = *buf
	}
	if err := fill(s, r, ctxText, value); err != nil {
		return Decision{}, err
	}
	s.context_kind = 0
	if isValue {
		s.context_kind = 1
	}
	if st := C.charter_go_decide(engine, handle, entitiesPointer(entities), s); st != C.CHARTER_OK {
		e := s.error
		s.error = nil
		return Decision{}, takeError(st, e)
	}
	return readDecision(s.context, s.allowed != 0, int(s.reasons), int(s.errors), s.ptrs[:], s.lens[:]), nil
}

// readDecision copies a decision out of ctx: from the views the deciding
// call left (ptrs, lens), and with further calls for what did not fit.
func readDecision(ctx *C.charter_eval_context, allowed bool, reasons, errs int, ptrs []*C.char,
	lens []C.size_t) Decision {
	d := Decision{Allowed: allowed}
	if reasons > 0 {
		d.Reasons = make([]string, reasons)
	}
	k := 0
	for i := 0; i < reasons; i++ {
		if k < len(ptrs) {
			d.Reasons[i] = C.GoStringN(ptrs[k], C.int(lens[k]))
			k++
			continue
		}
		var n C.size_t
		p := C.charter_eval_context_reason(ctx, C.size_t(i), &n)
		d.Reasons[i] = C.GoStringN(p, C.int(n))
	}
	if errs > 0 {
		d.Errors = make([]PolicyError, errs)
	}
	for i := 0; i < errs; i++ {
		if k+1 < len(ptrs) {
			d.Errors[i] = PolicyError{C.GoStringN(ptrs[k], C.int(lens[k])), C.GoStringN(ptrs[k+1], C.int(lens[k+1]))}
			k += 2
			continue
		}
		var n, m C.size_t
		p := C.charter_eval_context_error_policy(ctx, C.size_t(i), &n)
		msg := C.charter_eval_context_error_message(ctx, C.size_t(i), &m)
		d.Errors[i] = PolicyError{C.GoStringN(p, C.int(n)), C.GoStringN(msg, C.int(m))}
	}
	return d
}

// Authorize decides r against entities (nil: an empty store). An
// evaluation error in a policy is not an error of the call: the policy is
// skipped and listed in Decision.Errors.
func (e *Engine) Authorize(r Request, entities *Entities) (Decision, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.p == nil {
		return Decision{}, &Error{Status: StatusNullHandle, Message: "the engine is closed"}
	}
	return decide(e.p, nil, &e.contexts, &r, entities)
}

// AuthorizeBatch decides each request, in order; the first request Charter
// refuses stops it with its index in the error.
func (e *Engine) AuthorizeBatch(requests []Request, entities *Entities) ([]Decision, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.p == nil {
		return nil, &Error{Status: StatusNullHandle, Message: "the engine is closed"}
	}
	out := make([]Decision, len(requests))
	for i := range requests {
		d, err := decide(e.p, nil, &e.contexts, &requests[i], entities)
		if err != nil {
			return out[:i], fmt.Errorf("request %d: %w", i, err)
		}
		out[i] = d
	}
	return out, nil
}

// AuthorizeJSON decides a request written in Charter's request JSON
// ({"principal", "action", "resource", "context"}, references as
// `Type::"id"` strings or {"type", "id"} objects).
func (e *Engine) AuthorizeJSON(request string, entities *Entities) (Decision, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.p == nil {
		return Decision{}, &Error{Status: StatusNullHandle, Message: "the engine is closed"}
	}
	if entities != nil {
		entities.mu.RLock()
		defer entities.mu.RUnlock()
	}
	slot, err := e.contexts.get()
	if err != nil {
		return Decision{}, err
	}
	defer e.contexts.put(slot)
	ctx := slot.context
	var ce *C.charter_error
	j, n := cstr(request)
	st := C.charter_go_decide_json(e.p, entitiesPointer(entities), ctx, j, n, &ce)
	runtime.KeepAlive(request)
	if st != C.CHARTER_OK {
		return Decision{}, takeError(st, ce)
	}
	return readDecision(ctx, C.charter_eval_context_allowed(ctx) != 0,
		int(C.charter_eval_context_reason_count(ctx)), int(C.charter_eval_context_error_count(ctx)), nil, nil), nil
}

// ---- a hot-swappable engine -------------------------------------------------------------

// Handle is the engine a service decides with now: Swap and SwapBundle
// install a new one atomically while calls are in flight. Safe for
// concurrent use.
type Handle struct {
	mu       sync.RWMutex
	p        *C.charter_engine_handle
	contexts contextPool
}

// NewHandle makes a handle deciding with engine (which may be closed after).
func NewHandle(engine *Engine) (*Handle, error) {
	engine.mu.RLock()
	defer engine.mu.RUnlock()
	var p *C.charter_engine_handle
	var e *C.charter_error
	if st := C.charter_engine_handle_new(engine.p, &p, &e); st != C.CHARTER_OK {
		return nil, takeError(st, e)
	}
	h := &Handle{p: p}
	runtime.SetFinalizer(h, (*Handle).Close)
	return h, nil
}

// Swap installs engine for every call that starts from now on.
func (h *Handle) Swap(engine *Engine) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	engine.mu.RLock()
	defer engine.mu.RUnlock()
	var e *C.charter_error
	if st := C.charter_engine_handle_swap(h.p, engine.p, &e); st != C.CHARTER_OK {
		return takeError(st, e)
	}
	return nil
}

// SwapBundle loads, verifies and installs a bundle file; on an error the
// current engine stays.
func (h *Handle) SwapBundle(path string) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var e *C.charter_error
	s, n := cstr(path)
	st := C.charter_engine_handle_swap_bundle(h.p, s, n, &e)
	runtime.KeepAlive(path)
	if st != C.CHARTER_OK {
		return takeError(st, e)
	}
	return nil
}

// Generation counts the engines installed (1 after NewHandle).
func (h *Handle) Generation() uint64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return uint64(C.charter_engine_handle_generation(h.p))
}

// Authorize decides r with the current engine.
func (h *Handle) Authorize(r Request, entities *Entities) (Decision, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.p == nil {
		return Decision{}, &Error{Status: StatusNullHandle, Message: "the handle is closed"}
	}
	return decide(nil, h.p, &h.contexts, &r, entities)
}

// Close frees the handle's C memory.
func (h *Handle) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.p != nil {
		C.charter_engine_handle_free(h.p)
		h.p = nil
	}
	h.contexts.drain()
}

// ---- scheduling ---------------------------------------------------------------------------

// Schedule runs one Kueue scheduling cycle over a cluster state in the JSON
// of docs/scheduling.md (HyperPod's objects when hyperpod is true) and
// returns its outcome as `charter schedule --format json` prints it.
func Schedule(state string, hyperpod bool) (string, error) {
	var out *C.char
	var n C.size_t
	var e *C.charter_error
	s, sn := cstr(state)
	hp := C.int(0)
	if hyperpod {
		hp = 1
	}
	st := C.charter_schedule_cycle(s, sn, hp, &out, &n, &e)
	runtime.KeepAlive(state)
	if st != C.CHARTER_OK {
		return "", takeError(st, e)
	}
	defer C.charter_free(unsafe.Pointer(out))
	return C.GoStringN(out, C.int(n)), nil
}
