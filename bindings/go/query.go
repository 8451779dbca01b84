package charter

/*
#include <stdlib.h>
#include <charter.h>
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
)

// Query is a request with one side unknown (docs/query.md). Set Principal
// and ResourceType to ask "which resources of this type may the principal
// do Action on?", or Resource and PrincipalType to ask "which principals of
// this type may do Action on the resource?". Context and ContextJSON are as
// in Request. With an engine compiled with a schema, the query is checked
// against it (the action applies to the types, the context conforms).
type Query struct {
	Principal, Action, Resource EntityUID
	ResourceType, PrincipalType string
	Context                     map[string]any
	ContextJSON                 string
}

// Match is one entity a query is allowed on: the answer Authorize gives for
// it (its determining policies, and the policies skipped on it with an
// error).
type Match struct {
	UID     EntityUID
	Reasons []string
	Errors  []PolicyError
}

// Residual is the condition on an unknown entity of the query's type under
// which the request is allowed, from partial evaluation of the policy text
// (`charter query --residual`).
type Residual struct {
	// "allow" (for every entity of the type), "deny" (for none) or
	// "depends" (where Condition holds).
	Outcome string
	// Condition is Cedar text over `resource` (or `principal`);
	// ConditionJSON the same as Cedar's JSON expression.
	Condition     string
	ConditionJSON string
	// Exact is true when the condition can never fail to evaluate.
	Exact bool
	// LabelSelector is the condition as a Kubernetes label selector, when
	// HasLabelSelector.
	LabelSelector    string
	HasLabelSelector bool
	// JSON is the residual as `charter query --residual --format json`
	// prints it; Text as `charter query --residual` does.
	JSON string
	Text string
}

// cedarUID writes u as Cedar's `Type::"id"`, the id escaped.
func cedarUID(u EntityUID) string {
	var b strings.Builder
	b.WriteString(u.Type)
	b.WriteString(`::"`)
	for _, r := range u.ID {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// newQuery makes the C query of q, to free with charter_query_free.
func newQuery(engine *C.charter_engine, q *Query) (*C.charter_query, error) {
	resources := q.ResourceType != ""
	if resources == (q.PrincipalType != "") {
		return nil, &Error{Status: StatusInvalidArgument,
			Message: "a Query sets ResourceType (with Principal) or PrincipalType (with Resource), exactly one"}
	}
	ctxText := q.ContextJSON
	if ctxText == "" && q.Context != nil {
		b, err := json.Marshal(q.Context)
		if err != nil {
			return nil, &Error{Status: StatusInvalidArgument, Message: "the context: " + err.Error()}
		}
		ctxText = string(b)
	}
	action := cedarUID(q.Action)
	var out *C.charter_query
	var e *C.charter_error
	a, an := cstr(action)
	c, cn := cstr(ctxText)
	var st C.charter_status
	if resources {
		known, typ := cedarUID(q.Principal), q.ResourceType
		k, kn := cstr(known)
		t, tn := cstr(typ)
		st = C.charter_query_resources(engine, k, kn, a, an, t, tn, c, cn, &out, &e)
		runtime.KeepAlive(known)
		runtime.KeepAlive(typ)
	} else {
		known, typ := cedarUID(q.Resource), q.PrincipalType
		k, kn := cstr(known)
		t, tn := cstr(typ)
		st = C.charter_query_principals(engine, t, tn, a, an, k, kn, c, cn, &out, &e)
		runtime.KeepAlive(known)
		runtime.KeepAlive(typ)
	}
	runtime.KeepAlive(action)
	runtime.KeepAlive(ctxText)
	if st != C.CHARTER_OK {
		return nil, takeError(st, e)
	}
	return out, nil
}

// withQuery runs f with the engine's and the store's C handles and q's C
// query, holding both against Close.
func (e *Engine) withQuery(q *Query, entities *Entities, f func(*C.charter_query, *C.charter_entities) error) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.p == nil {
		return &Error{Status: StatusNullHandle, Message: "the engine is closed"}
	}
	if entities != nil {
		entities.mu.RLock()
		defer entities.mu.RUnlock()
		if entities.p == nil {
			return &Error{Status: StatusNullHandle, Message: "the entities are closed"}
		}
	}
	cq, err := newQuery(e.p, q)
	if err != nil {
		return err
	}
	defer C.charter_query_free(cq)
	return f(cq, entitiesPointer(entities))
}

func goString(p *C.char, n C.size_t) string { return C.GoStringN(p, C.int(n)) }

// readMatch copies a match out of C memory.
func readMatch(m *C.charter_match) Match {
	var n C.size_t
	var out Match
	out.UID.Type = goString(C.charter_match_type(m, &n), n)
	out.UID.ID = goString(C.charter_match_id(m, &n), n)
	if k := int(C.charter_match_reason_count(m)); k > 0 {
		out.Reasons = make([]string, k)
		for i := range out.Reasons {
			out.Reasons[i] = goString(C.charter_match_reason(m, C.size_t(i), &n), n)
		}
	}
	if k := int(C.charter_match_error_count(m)); k > 0 {
		out.Errors = make([]PolicyError, k)
		for i := range out.Errors {
			var pn, mn C.size_t
			p := C.charter_match_error_policy(m, C.size_t(i), &pn)
			msg := C.charter_match_error_message(m, C.size_t(i), &mn)
			out.Errors[i] = PolicyError{goString(p, pn), goString(msg, mn)}
		}
	}
	return out
}

// page lists up to limit matches from cursor start.
func page(engine *C.charter_engine, cq *C.charter_query, entities *C.charter_entities, start int,
	limit C.size_t) ([]Match, int, error) {
	var p *C.charter_match_page
	var e *C.charter_error
	if st := C.charter_list_allowed_page(engine, entities, cq, C.size_t(start), limit, &p, &e); st != C.CHARTER_OK {
		return nil, 0, takeError(st, e)
	}
	defer C.charter_match_page_free(p)
	n := int(C.charter_match_page_count(p))
	out := make([]Match, n)
	for i := range out {
		out[i] = readMatch(C.charter_match_page_at(p, C.size_t(i)))
	}
	return out, int(C.charter_match_page_next(p)), nil
}

// ListAllowed lists the entities of the query's unknown type in entities
// that the query is allowed on, in the store's order: what Authorize
// answers for each one (`charter query`). A query the schema or the store
// refuses (an unknown type, a known side not in the store) is an *Error.
func (e *Engine) ListAllowed(q Query, entities *Entities) ([]Match, error) {
	var out []Match
	err := e.withQuery(&q, entities, func(cq *C.charter_query, ent *C.charter_entities) error {
		var err error
		out, _, err = page(e.p, cq, ent, 0, ^C.size_t(0))
		return err
	})
	return out, err
}

// ListAllowedPage is ListAllowed a page at a time: up to limit (at least 1)
// matches from cursor (0 for the first page), and the cursor of the next
// page, 0 when every candidate has been examined. The same store and query
// give the same pages.
func (e *Engine) ListAllowedPage(q Query, entities *Entities, cursor, limit int) ([]Match, int, error) {
	if cursor < 0 || limit < 1 {
		return nil, 0, &Error{Status: StatusInvalidArgument,
			Message: fmt.Sprintf("a page needs cursor >= 0 and limit >= 1, not cursor %d and limit %d", cursor, limit)}
	}
	var out []Match
	next := 0
	err := e.withQuery(&q, entities, func(cq *C.charter_query, ent *C.charter_entities) error {
		var err error
		out, next, err = page(e.p, cq, ent, cursor, C.size_t(limit))
		return err
	})
	return out, next, err
}

// Residual computes the condition on an unknown entity of the query's type
// under which the request is allowed. The engine must have been compiled
// from policy text: an engine from a bundle has compiled code only.
func (e *Engine) Residual(q Query, entities *Entities) (Residual, error) {
	var out Residual
	err := e.withQuery(&q, entities, func(cq *C.charter_query, ent *C.charter_entities) error {
		var r *C.charter_residual
		var ce *C.charter_error
		if st := C.charter_residual_new(e.p, ent, cq, &r, &ce); st != C.CHARTER_OK {
			return takeError(st, ce)
		}
		defer C.charter_residual_free(r)
		switch C.charter_residual_get_outcome(r) {
		case C.CHARTER_RESIDUAL_ALLOW:
			out.Outcome = "allow"
		case C.CHARTER_RESIDUAL_DENY:
			out.Outcome = "deny"
		default:
			out.Outcome = "depends"
		}
		var n C.size_t
		out.Condition = goString(C.charter_residual_condition(r, &n), n)
		out.ConditionJSON = goString(C.charter_residual_condition_json(r, &n), n)
		out.Exact = C.charter_residual_exact(r) != 0
		if p := C.charter_residual_label_selector(r, &n); p != nil {
			out.LabelSelector, out.HasLabelSelector = goString(p, n), true
		}
		out.JSON = goString(C.charter_residual_json(r, &n), n)
		out.Text = goString(C.charter_residual_text(r, &n), n)
		return nil
	})
	return out, err
}
