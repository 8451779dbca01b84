package charter

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A Context map goes to the C API as a value (charter_value), ContextJSON as
// text: the same request either way, for every kind of value.

const valuePolicies = `
@id("submit")
permit (principal in Team::"ml", action == Action::"submit", resource)
when { context.gpus <= 8 && context.now < datetime("2026-01-01") && context.team == Team::"ml" &&
       context.tags.contains("train") && context.ok && context.src.isInRange(ip("10.0.0.0/8")) &&
       context.budget.lessThan(decimal("100.0")) && context.limit < duration("2h") &&
       context.meta.zone == "eu" };
`

const valueEntities = `[
  {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "Team", "id": "ml"}, "attrs": {}, "parents": []}
]`

func fullContext() map[string]any {
	return map[string]any{
		"gpus":   4,
		"now":    map[string]any{"__extn": map[string]any{"fn": "datetime", "arg": "2025-11-03T09:00:00Z"}},
		"team":   map[string]any{"__entity": map[string]string{"type": "Team", "id": "ml"}},
		"tags":   []any{"train", "gpu"},
		"ok":     true,
		"src":    map[string]any{"__extn": map[string]string{"fn": "ip", "arg": "10.1.2.3"}},
		"budget": map[string]any{"__extn": map[string]any{"fn": "decimal", "arg": "12.50"}},
		"limit":  map[string]any{"__extn": map[string]any{"fn": "duration", "arg": "1h30m"}},
		"meta":   map[string]string{"zone": "eu"},
	}
}

// both decides the context as a value and as its JSON: the same decision,
// or both refused.
func both(t *testing.T, engine *Engine, entities *Entities, context map[string]any) (Decision, error) {
	t.Helper()
	r := Request{Principal: UID("User", "alice"), Action: UID("Action", "submit"), Resource: UID("Task", "t1"),
		Context: context}
	byValue, errValue := engine.Authorize(r, entities)
	text, err := json.Marshal(context)
	if err != nil {
		t.Fatal(err)
	}
	r.Context, r.ContextJSON = nil, string(text)
	byText, errText := engine.Authorize(r, entities)
	if (errValue == nil) != (errText == nil) || !reflect.DeepEqual(byValue, byText) {
		t.Errorf("%s:\n value %v %v\n text  %v %v", text, byValue, errValue, byText, errText)
	}
	return byValue, errValue
}

func valueWorld(t *testing.T) (*Engine, *Entities) {
	engine, err := Compile(valuePolicies, "")
	if err != nil {
		t.Fatal(err)
	}
	entities, err := ParseEntities(valueEntities, "")
	if err != nil {
		t.Fatal(err)
	}
	return engine, entities
}

func TestContextEveryKind(t *testing.T) {
	engine, entities := valueWorld(t)
	defer engine.Close()
	defer entities.Close()
	if d, err := both(t, engine, entities, fullContext()); err != nil || !d.Allowed {
		t.Fatal(d, err)
	}
	// Each extension value decides: outside its range, deny.
	for key, arg := range map[string]string{"src": "192.168.0.1", "budget": "200.0", "limit": "3h",
		"now": "2026-06-01T00:00:00Z"} {
		c := fullContext()
		fn, _ := member(c[key].(map[string]any)["__extn"], "fn")
		c[key] = map[string]any{"__extn": map[string]any{"fn": fn, "arg": arg}}
		if d, err := both(t, engine, entities, c); err != nil || d.Allowed {
			t.Errorf("%s=%s: %v %v", key, arg, d, err)
		}
	}
	// Go's other forms: []string, every integer type, an EntityUID (a
	// record, as encoding/json writes it), nested maps.
	c := fullContext()
	c["tags"] = []string{"train"}
	for _, n := range []any{int8(4), int16(4), int32(4), int64(4), uint(4), uint8(4), uint16(4), uint32(4), uint64(4)} {
		c["gpus"] = n
		if d, err := both(t, engine, entities, c); err != nil || !d.Allowed {
			t.Errorf("gpus %T: %v %v", n, d, err)
		}
	}
	c["team"] = UID("Team", "ml")
	if d, err := both(t, engine, entities, c); err != nil || d.Allowed {
		t.Errorf("an EntityUID is a record without a schema: %v %v", d, err)
	}
	// Mixed sets, empty containers, bounds.
	for _, extra := range []any{[]any{1, "a", true, map[string]any{}}, []any{}, map[string]any{},
		int64(9223372036854775807), int64(-9223372036854775808)} {
		c := fullContext()
		c["extra"] = extra
		if d, err := both(t, engine, entities, c); err != nil || !d.Allowed {
			t.Errorf("extra %v: %v %v", extra, d, err)
		}
	}
}

func TestContextFallsBackToJSON(t *testing.T) {
	engine, entities := valueWorld(t)
	defer engine.Close()
	defer entities.Close()
	// What the value encoding does not say as encoding/json would: the
	// context is marshalled, as before; the same answers as the text.
	type custom struct {
		Zone string `json:"zone"`
	}
	for _, extra := range []any{4.0, 1.5, custom{"eu"}, &custom{"eu"}, nil, uint64(1 << 63), "\xff",
		map[string]any{"__expr": "1"}, map[string]any{"__extn": map[string]any{"fn": "ip", "arg": 1}}} {
		c := fullContext()
		c["extra"] = extra
		both(t, engine, entities, c)
	}
	c := fullContext()
	c["meta"] = custom{"eu"}
	if d, err := both(t, engine, entities, c); err != nil || !d.Allowed {
		t.Errorf("a struct as a record: %v %v", d, err)
	}
	c = fullContext()
	c["gpus"] = 4.0 // encoding/json writes 4: a Long
	if d, err := both(t, engine, entities, c); err != nil || !d.Allowed {
		t.Errorf("4.0: %v %v", d, err)
	}
}

func TestContextFaults(t *testing.T) {
	engine, entities := valueWorld(t)
	defer engine.Close()
	defer entities.Close()
	c := fullContext()
	c["bad"] = map[string]any{"__extn": map[string]any{"fn": "datetime", "arg": "yesterday"}}
	_, err := both(t, engine, entities, c)
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != StatusInvalidArgument ||
		!strings.HasPrefix(ce.Message, "context: context: attribute `bad`: ") {
		t.Errorf("a bad datetime: %+v", err)
	}
	c = fullContext()
	c["bad"] = map[string]any{"x": []any{map[string]any{"__extn": map[string]any{"fn": "nope", "arg": "1"}}}}
	_, err = both(t, engine, entities, c)
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "unknown extension function `nope`") {
		t.Errorf("an unknown function: %+v", err)
	}
}

func TestGovernanceContextsBothWays(t *testing.T) {
	root, _ := filepath.Abs("../..")
	if dir := os.Getenv("CHARTER_SOURCE_DIR"); dir != "" {
		root = dir
	}
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	schema := read("stdlib/governance.cedarschema")
	engine, err := Compile(read("examples/governance/policies.cedar"), schema)
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	entities, err := ParseEntities(read("examples/governance/entities.json"), schema)
	if err != nil {
		t.Fatal(err)
	}
	defer entities.Close()
	var requests []struct {
		Principal, Action, Resource string
		Context                     map[string]any
	}
	if err := json.Unmarshal([]byte(read("examples/governance/requests.json")), &requests); err != nil {
		t.Fatal(err)
	}
	uid := func(s string) EntityUID {
		i := strings.Index(s, "::\"")
		return UID(s[:i], strings.TrimSuffix(s[i+3:], "\""))
	}
	allowed := 0
	for _, r := range requests {
		req := Request{Principal: uid(r.Principal), Action: uid(r.Action), Resource: uid(r.Resource), Context: r.Context}
		byValue, err1 := engine.Authorize(req, entities)
		text, _ := json.Marshal(r.Context)
		req.Context, req.ContextJSON = nil, string(text)
		byText, err2 := engine.Authorize(req, entities)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(byValue, byText) {
			t.Errorf("%v: value %v %v, text %v %v", r, byValue, err1, byText, err2)
		}
		if byValue.Allowed {
			allowed++
		}
	}
	if allowed == 0 || len(requests) < 20 {
		t.Errorf("%d of %d allowed", allowed, len(requests))
	}
}

func BenchmarkGovernanceSubmitValue(b *testing.B) {
	engine, entities := governance(b)
	r := Request{Principal: UID("Governance::Member", "alice"), Action: UID("Governance::Action", "submitTask"),
		Resource: UID("Governance::Task", "vision-train-17"),
		Context:  map[string]any{"now": map[string]any{"__extn": map[string]any{"fn": "datetime", "arg": "2025-11-03T09:00:00Z"}}}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d, err := engine.Authorize(r, entities); err != nil || !d.Allowed {
			b.Fatal(d, err)
		}
	}
}
