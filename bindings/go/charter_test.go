package charter

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
)

const policies = `
@id("ml-submit")
permit (principal in Team::"ml", action == Action::"submit", resource) when { context.gpus <= 8 };
@id("suspended")
forbid (principal, action, resource) when { principal has suspended && principal.suspended };
@id("errs")
permit (principal, action == Action::"view", resource) when { principal.missing == 1 };
`

const entitiesJSON = `[
  {"uid": {"type": "User", "id": "alice"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {"suspended": true}, "parents": [{"type": "Team", "id": "ml"}]}
]`

func setup(t testing.TB) (*Engine, *Entities) {
	t.Helper()
	engine, err := Compile(policies, "")
	if err != nil {
		t.Fatal(err)
	}
	entities, err := ParseEntities(entitiesJSON, "")
	if err != nil {
		t.Fatal(err)
	}
	return engine, entities
}

func submit(user string, gpus int) Request {
	return Request{Principal: UID("User", user), Action: UID("Action", "submit"), Resource: UID("Task", "t1"),
		Context: map[string]any{"gpus": gpus}}
}

func TestAuthorize(t *testing.T) {
	engine, entities := setup(t)
	defer engine.Close()
	defer entities.Close()
	if engine.PolicyCount() != 3 || entities.Len() != 2 {
		t.Fatalf("policies %d, entities %d", engine.PolicyCount(), entities.Len())
	}
	if ids := engine.PolicyIDs(); !reflect.DeepEqual(ids, []string{"ml-submit", "suspended", "errs"}) {
		t.Fatalf("policy ids %q", ids)
	}
	cases := []struct {
		r       Request
		allowed bool
		reasons []string
	}{
		{submit("alice", 4), true, []string{"ml-submit"}},
		{submit("alice", 16), false, nil},
		{submit("bob", 1), false, []string{"suspended"}},
	}
	for _, c := range cases {
		d, err := engine.Authorize(c.r, entities)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed != c.allowed || !reflect.DeepEqual(d.Reasons, c.reasons) {
			t.Errorf("%v: got %v %v, want %v %v", c.r, d.Allowed, d.Reasons, c.allowed, c.reasons)
		}
	}
	d, err := engine.Authorize(Request{Principal: UID("User", "alice"), Action: UID("Action", "view"),
		Resource: UID("Task", "t1")}, entities)
	if err != nil {
		t.Fatal(err)
	}
	if d.Allowed || len(d.Errors) != 1 || d.Errors[0].PolicyID != "errs" || !strings.Contains(d.Errors[0].Message, "missing") {
		t.Errorf("erring policy: %+v", d)
	}
	// Without entities alice is in no team.
	if d, _ := engine.Authorize(submit("alice", 1), nil); d.Allowed {
		t.Error("allowed without entities")
	}
	// ContextJSON, and ids that need escaping in Cedar's text form.
	d, err = engine.Authorize(Request{Principal: UID("User", `a"b\c`), Action: UID("Action", "submit"),
		Resource: UID("Task", "t"), ContextJSON: `{"gpus": 1}`}, entities)
	if err != nil || d.Allowed {
		t.Errorf("escaped id: %+v %v", d, err)
	}
}

func TestBatch(t *testing.T) {
	engine, entities := setup(t)
	ds, err := engine.AuthorizeBatch([]Request{submit("alice", 1), submit("bob", 1), submit("alice", 99)}, entities)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{ds[0].String(), ds[1].String(), ds[2].String()}
	if !reflect.DeepEqual(got, []string{"allow", "deny", "deny"}) {
		t.Errorf("batch: %v", got)
	}
	_, err = engine.AuthorizeBatch([]Request{submit("alice", 1), {Principal: UID("", "x")}}, entities)
	if err == nil || !strings.Contains(err.Error(), "request 1") {
		t.Errorf("batch error: %v", err)
	}
}

func TestErrorsHavePlaces(t *testing.T) {
	_, err := Compile("permit (principal, action, resource)\nwhen { 1 + };", "")
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("not an *Error: %v", err)
	}
	if ce.Status != StatusInvalidArgument || ce.Source != "policies.cedar" || ce.Line != 2 || ce.Column == 0 ||
		!strings.HasPrefix(ce.Message, "policies.cedar:2:") || !strings.Contains(ce.Detail, "^") ||
		!strings.HasPrefix(ce.Code, "CH") {
		t.Errorf("%+v", ce)
	}
	_, err = ParseEntities("[\n {\"uid\": 3}]", "")
	if !errors.As(err, &ce) || ce.Source != "entities.json" || ce.Line != 2 {
		t.Errorf("entities: %+v", err)
	}
	engine, entities := setup(t)
	_, err = engine.Authorize(Request{Principal: UID("User", "alice"), Action: UID("Action", "submit"),
		Resource: UID("Task", "t"), ContextJSON: `{"gpus": tru}`}, entities)
	if !errors.As(err, &ce) || ce.Source != "context.json" || ce.Line != 1 || ce.Column != 10 {
		t.Errorf("context: %+v", err)
	}
	_, err = engine.Authorize(Request{Principal: UID("User", "alice"), Action: UID("Action", "submit"),
		Resource: UID("Task", "t"), Context: map[string]any{"f": 1.5}}, entities)
	if err == nil {
		t.Error("a float in the context was accepted")
	}
	_, err = LoadBundle("/nonexistent/charter.bundle")
	if !errors.As(err, &ce) || ce.Status != StatusNotFound {
		t.Errorf("missing bundle: %v", err)
	}
}

func TestClosedHandles(t *testing.T) {
	engine, entities := setup(t)
	engine.Close()
	engine.Close()
	if _, err := engine.Authorize(submit("alice", 1), entities); err == nil {
		t.Error("a closed engine decided")
	}
	engine, _ = setup(t)
	entities.Close()
	if _, err := engine.Authorize(submit("alice", 1), entities); err == nil {
		t.Error("closed entities were used")
	}
}

func TestConcurrent(t *testing.T) {
	engine, entities := setup(t)
	var wg sync.WaitGroup
	wrong := make([]int, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				user := []string{"bob", "alice"}[i%2]
				d, err := engine.Authorize(submit(user, 1), entities)
				if err != nil || d.Allowed != (i%2 == 1) {
					wrong[g]++
				}
			}
		}(g)
	}
	wg.Wait()
	for g, n := range wrong {
		if n != 0 {
			t.Errorf("goroutine %d: %d wrong decisions", g, n)
		}
	}
}

func TestHandleAndExtend(t *testing.T) {
	engine, entities := setup(t)
	h, err := NewHandle(engine)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	deny, err := Compile(`@id("nobody") forbid (principal, action, resource);`, "")
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := h.Authorize(submit("alice", 1), entities); !d.Allowed {
		t.Error("handle: not allowed before the swap")
	}
	if err := h.Swap(deny); err != nil || h.Generation() != 2 {
		t.Fatalf("swap: %v, generation %d", err, h.Generation())
	}
	if d, _ := h.Authorize(submit("alice", 1), entities); d.Allowed || !reflect.DeepEqual(d.Reasons, []string{"nobody"}) {
		t.Errorf("after the swap: %+v", d)
	}
	if err := h.SwapBundle("/nonexistent/x.bundle"); err == nil || h.Generation() != 2 {
		t.Error("a missing bundle was installed")
	}
	more, err := entities.Extend(`[{"uid": {"type": "User", "id": "carol"}, "attrs": {}, "parents": [{"type": "Team", "id": "ml"}]}]`)
	if err != nil || more.Len() != 3 {
		t.Fatalf("extend: %v", err)
	}
	if d, _ := engine.Authorize(submit("carol", 1), more); !d.Allowed {
		t.Error("carol, in the extended store, is not allowed")
	}
}

func TestSchedule(t *testing.T) {
	out, err := Schedule(`{"resource_flavors": ["default"],
	  "cluster_queues": [{"name": "team-a", "resource_groups": [{"covered_resources": ["cpu"],
	    "flavors": [{"name": "default", "quotas": {"cpu": {"nominal": 4}}}]}]}],
	  "pending": [{"name": "w1", "cluster_queue": "team-a", "pod_sets": [{"name": "main", "count": 2, "requests": {"cpu": "1"}}]}]}`, false)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Admitted []struct{ Name string } `json:"admitted"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Admitted) != 1 || r.Admitted[0].Name != "w1" {
		t.Errorf("schedule: %s (%v)", out, err)
	}
	if _, err := Schedule(`{"cluster_queues": 3}`, false); err == nil {
		t.Error("a bad state was scheduled")
	}
}

// The governance example decided as `charter authorize` decides it. The
// command is $CHARTER_CLI, else the build's.
func TestGovernanceAsCharterAuthorize(t *testing.T) {
	root, _ := filepath.Abs("../..")
	if dir := os.Getenv("CHARTER_SOURCE_DIR"); dir != "" {
		root = dir
	}
	cli := os.Getenv("CHARTER_CLI")
	if cli == "" {
		cli = filepath.Join(root, "build", "cli", "charter")
	}
	ex := filepath.Join(root, "examples", "governance")
	schemaPath := filepath.Join(root, "stdlib", "governance.cedarschema")
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	schema := read(schemaPath)
	engine, err := Compile(read(filepath.Join(ex, "policies.cedar")), schema)
	if err != nil {
		t.Fatal(err)
	}
	entities, err := ParseEntities(read(filepath.Join(ex, "entities.json")), schema)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cli, "authorize", "--policies", filepath.Join(ex, "policies.cedar"), "--schema", schemaPath,
		"--entities", filepath.Join(ex, "entities.json"), "--requests", filepath.Join(ex, "requests.json"),
		"--format", "jsonl").Output()
	if err != nil {
		t.Fatalf("%s: %v", cli, err)
	}
	// Without the errors' places in the policy text, which the C API does not report.
	place := regexp.MustCompile(`,"begin":[0-9]+,"end":[0-9]+(,"line":[0-9]+,"column":[0-9]+)?`)
	var want []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		want = append(want, place.ReplaceAllString(sc.Text(), ""))
	}
	var got []string
	for _, line := range strings.Split(read(filepath.Join(ex, "requests.json")), "\n") {
		line = strings.TrimRight(strings.TrimSpace(line), ",")
		if !strings.HasPrefix(line, "{") {
			continue
		}
		d, err := engine.AuthorizeJSON(line, entities)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, decisionJSON(d))
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("decisions differ from charter authorize:\n got %q\nwant %q", got, want)
	}
	t.Logf("%d requests decided as charter authorize decides them", len(got))
}

// decisionJSON writes d as `charter authorize --format jsonl` does.
func decisionJSON(d Decision) string {
	type perr struct {
		Policy  string `json:"policy"`
		Message string `json:"message"`
	}
	v := struct {
		Decision string   `json:"decision"`
		Reasons  []string `json:"reasons"`
		Errors   []perr   `json:"errors"`
	}{Decision: d.String(), Reasons: d.Reasons, Errors: []perr{}}
	if v.Reasons == nil {
		v.Reasons = []string{}
	}
	for _, e := range d.Errors {
		v.Errors = append(v.Errors, perr{e.PolicyID, e.Message})
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func BenchmarkAuthorize(b *testing.B) {
	engine, entities := setup(b)
	r := submit("alice", 4)
	r.Context = nil
	r.ContextJSON = `{"gpus": 4}`
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := engine.Authorize(r, entities); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAuthorizeNoContext(b *testing.B) {
	engine, entities := setup(b)
	r := Request{Principal: UID("User", "bob"), Action: UID("Action", "submit"), Resource: UID("Task", "t1")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := engine.Authorize(r, entities); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAuthorizeParallel(b *testing.B) {
	engine, entities := setup(b)
	r := Request{Principal: UID("User", "bob"), Action: UID("Action", "submit"), Resource: UID("Task", "t1")}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := engine.Authorize(r, entities); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The governance example, as bench/lua/authorize_bench.lua and
// bench/capi_bench.cc decide it: alice views vision-train-17 (no context),
// and submits it (the time in the context).
func governance(b *testing.B) (*Engine, *Entities) {
	root, _ := filepath.Abs("../..")
	read := func(p string) string {
		t, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			b.Fatal(err)
		}
		return string(t)
	}
	schema := read("stdlib/governance.cedarschema")
	engine, err := Compile(read("examples/governance/policies.cedar"), schema)
	if err != nil {
		b.Fatal(err)
	}
	entities, err := ParseEntities(read("examples/governance/entities.json"), schema)
	if err != nil {
		b.Fatal(err)
	}
	return engine, entities
}

func BenchmarkGovernanceView(b *testing.B) {
	engine, entities := governance(b)
	r := Request{Principal: UID("Governance::Member", "alice"), Action: UID("Governance::Action", "viewTask"),
		Resource: UID("Governance::Task", "vision-train-17")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d, err := engine.Authorize(r, entities); err != nil || !d.Allowed {
			b.Fatal(d, err)
		}
	}
}

func BenchmarkGovernanceSubmit(b *testing.B) {
	engine, entities := governance(b)
	r := Request{Principal: UID("Governance::Member", "alice"), Action: UID("Governance::Action", "submitTask"),
		Resource:    UID("Governance::Task", "vision-train-17"),
		ContextJSON: `{"now": {"__extn": {"fn": "datetime", "arg": "2025-11-03T09:00:00Z"}}}`}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d, err := engine.Authorize(r, entities); err != nil || !d.Allowed {
			b.Fatal(d, err)
		}
	}
}
