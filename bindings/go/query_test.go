package charter

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sourceRoot() string {
	root, _ := filepath.Abs("../..")
	if dir := os.Getenv("CHARTER_SOURCE_DIR"); dir != "" {
		root = dir
	}
	return root
}

// cliPath is $CHARTER_CLI, else the build's charter.
func cliPath() string {
	if cli := os.Getenv("CHARTER_CLI"); cli != "" {
		return cli
	}
	return filepath.Join(sourceRoot(), "build", "cli", "charter")
}

// governanceQuery compiles the governance example and returns a function
// running `charter query` on it with more flags.
func governanceQuery(t *testing.T) (*Engine, *Entities, func(flags ...string) string) {
	root, cli := sourceRoot(), cliPath()
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
	run := func(flags ...string) string {
		args := append([]string{"query", "--policies", filepath.Join(ex, "policies.cedar"), "--schema", schemaPath,
			"--entities", filepath.Join(ex, "entities.json")}, flags...)
		out, err := exec.Command(cli, args...).Output()
		if err != nil {
			t.Fatalf("%s %v: %v", cli, args, err)
		}
		return string(out)
	}
	return engine, entities, run
}

// cliMatches is the "allowed" list of `charter query --format json`.
type cliMatch struct {
	UID     EntityUID `json:"uid"`
	Reasons []string  `json:"reasons"`
	Errors  []struct {
		Policy  string `json:"policy"`
		Message string `json:"message"`
	} `json:"errors"`
}

func asCLI(ms []Match) []cliMatch {
	out := make([]cliMatch, len(ms))
	for i, m := range ms {
		out[i].UID = m.UID
		out[i].Reasons = m.Reasons
		if out[i].Reasons == nil {
			out[i].Reasons = []string{}
		}
		for _, e := range m.Errors {
			out[i].Errors = append(out[i].Errors, struct {
				Policy  string `json:"policy"`
				Message string `json:"message"`
			}{e.PolicyID, e.Message})
		}
	}
	return out
}

func TestListAllowedAsCharterQuery(t *testing.T) {
	engine, entities, run := governanceQuery(t)
	alice, view := UID("Governance::Member", "alice"), UID("Governance::Action", "viewTask")
	task := UID("Governance::Task", "vision-train-17")
	cases := []struct {
		q     Query
		flags []string
	}{
		{Query{Principal: alice, Action: view, ResourceType: "Governance::Task"},
			[]string{"--principal", cedarUID(alice), "--action", cedarUID(view), "--resource-type", "Governance::Task"}},
		{Query{Resource: task, Action: view, PrincipalType: "Governance::Member"},
			[]string{"--resource", cedarUID(task), "--action", cedarUID(view), "--principal-type", "Governance::Member"}},
	}
	for _, c := range cases {
		got, err := engine.ListAllowed(c.q, entities)
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Allowed []cliMatch `json:"allowed"`
		}
		if err := json.Unmarshal([]byte(run(append(c.flags, "--format", "json")...)), &want); err != nil {
			t.Fatal(err)
		}
		for i := range want.Allowed {
			if want.Allowed[i].Errors != nil && len(want.Allowed[i].Errors) == 0 {
				want.Allowed[i].Errors = nil
			}
		}
		if len(got) == 0 || !reflect.DeepEqual(asCLI(got), want.Allowed) {
			t.Errorf("%v: listing differs from charter query:\n got %v\nwant %v", c.flags, asCLI(got), want.Allowed)
		}
		// Pages of 1, 2 and 1000 give the same list.
		for _, limit := range []int{1, 2, 1000} {
			var paged []Match
			cursor, pages := 0, 0
			for {
				ms, next, err := engine.ListAllowedPage(c.q, entities, cursor, limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(ms) > limit {
					t.Fatalf("a page of %d has %d matches", limit, len(ms))
				}
				paged, pages = append(paged, ms...), pages+1
				if next == 0 {
					break
				}
				cursor = next
			}
			if !reflect.DeepEqual(paged, got) {
				t.Errorf("pages of %d differ: %v", limit, paged)
			}
			if limit == 1000 && pages != 1 {
				t.Errorf("%d pages of 1000", pages)
			}
		}
	}
	got, _ := engine.ListAllowed(cases[0].q, entities)
	if len(got) != 7 || got[0].UID != UID("Governance::Task", "vision-train-17") ||
		!reflect.DeepEqual(got[0].Reasons, []string{"teams-view-their-tasks"}) {
		t.Errorf("alice views %v", got)
	}
}

func TestResidualAsCharterQuery(t *testing.T) {
	engine, entities, run := governanceQuery(t)
	alice, view := UID("Governance::Member", "alice"), UID("Governance::Action", "viewTask")
	r, err := engine.Residual(Query{Principal: alice, Action: view, ResourceType: "Governance::Task"}, entities)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != "depends" || r.Exact || r.HasLabelSelector ||
		!strings.HasPrefix(r.Condition, `Governance::Member::"alice" in resource.namespace.team`) ||
		!strings.HasPrefix(r.ConditionJSON, `{"&&":`) {
		t.Errorf("residual %+v", r)
	}
	flags := []string{"--principal", cedarUID(alice), "--action", cedarUID(view), "--resource-type",
		"Governance::Task", "--residual"}
	if want := run(append(flags, "--format", "json")...); r.JSON+"\n" != want {
		t.Errorf("JSON differs from charter query:\n got %s\nwant %s", r.JSON, want)
	}
	if want := run(flags...); r.Text != want {
		t.Errorf("text differs from charter query:\n got %s\nwant %s", r.Text, want)
	}
}

func TestQueryErrors(t *testing.T) {
	engine, entities, _ := governanceQuery(t)
	alice, view := UID("Governance::Member", "alice"), UID("Governance::Action", "viewTask")
	check := func(err error, status Status, message string) {
		t.Helper()
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("want an *Error %q, got %v", message, err)
		}
		if ce.Status != status || !strings.HasPrefix(ce.Message, message) {
			t.Errorf("got %s %q, want %s %q", ce.Status, ce.Message, status, message)
		}
	}
	_, err := engine.ListAllowed(Query{Principal: alice, Action: view, ResourceType: "Governance::Tsk"}, entities)
	check(err, StatusInvalidArgument, "the schema declares no entity type `Governance::Tsk`")
	_, err = engine.ListAllowed(Query{Principal: UID("Governance::Member", "alyce"), Action: view,
		ResourceType: "Governance::Task"}, entities)
	check(err, StatusInvalidArgument, "the principal `Governance::Member::\"alyce\"` is not in the entities; "+
		"did you mean `Governance::Member::\"alice\"`?")
	_, err = engine.ListAllowed(Query{Principal: UID("Governance Member", "alice"), Action: view,
		ResourceType: "Governance::Task"}, entities)
	check(err, StatusInvalidArgument, "the principal `Governance Member::\"alice\"` is not an entity reference")
	_, err = engine.ListAllowed(Query{Principal: alice, Action: view}, entities)
	check(err, StatusInvalidArgument, "a Query sets ResourceType (with Principal) or PrincipalType (with Resource)")
	_, err = engine.ListAllowed(Query{Principal: alice, Action: view, ResourceType: "Governance::Task",
		ContextJSON: `{"mfa": }`}, entities)
	check(err, StatusInvalidArgument, "context.json:1:9: ")
	_, _, err = engine.ListAllowedPage(Query{Principal: alice, Action: view, ResourceType: "Governance::Task"},
		entities, 0, 0)
	check(err, StatusInvalidArgument, "a page needs cursor >= 0 and limit >= 1")
	_, err = engine.Residual(Query{Principal: UID("Governance::Team", "vision"), Action: view,
		ResourceType: "Governance::Task"}, entities)
	check(err, StatusInvalidArgument, "action `Governance::Action::\"viewTask\"` does not apply to principals")

	// An id that needs escaping reaches the library as it is.
	_, err = engine.ListAllowed(Query{Principal: UID("Governance::Member", "a\"b\\c\n"), Action: view,
		ResourceType: "Governance::Task"}, entities)
	check(err, StatusInvalidArgument, "the principal `Governance::Member::\"a\\\"b\\\\c\\n\"` is not in the entities")

	// A bundle lists but has no text for a residual; a closed engine fails.
	dir := t.TempDir()
	small, err := Compile(`permit (principal, action == Action::"a", resource);`, "")
	if err != nil {
		t.Fatal(err)
	}
	store, err := ParseEntities(`[{"uid": {"type": "User", "id": "u"}, "attrs": {}, "parents": []},
		{"uid": {"type": "Task", "id": "t"}, "attrs": {}, "parents": []}]`, "")
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Principal: UID("User", "u"), Action: UID("Action", "a"), ResourceType: "Task"}
	if r, err := small.Residual(q, store); err != nil || r.Outcome != "allow" || r.Condition != "true" {
		t.Errorf("residual %+v, %v", r, err)
	}
	policies, bundle := filepath.Join(dir, "p.cedar"), filepath.Join(dir, "p.chb")
	if err := os.WriteFile(policies, []byte(`permit (principal, action, resource);`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cliPath(), "build", "--policies", policies, "-o", bundle).CombinedOutput(); err != nil {
		t.Fatalf("charter build: %v\n%s", err, out)
	}
	loaded, err := LoadBundle(bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Close()
	if ms, err := loaded.ListAllowed(q, store); err != nil || len(ms) != 1 || ms[0].UID != UID("Task", "t") {
		t.Errorf("a bundle's listing: %v, %v", ms, err)
	}
	_, err = loaded.Residual(q, store)
	check(err, StatusInvalidArgument, "a residual needs the policy text: this engine was loaded from a bundle")
	small.Close()
	_, err = small.ListAllowed(q, store)
	check(err, StatusNullHandle, "the engine is closed")
}
