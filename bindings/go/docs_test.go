package charter

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Go examples of docs/embedding.md: each ```go block whose first line is
// `// example: NAME` is a program, built in a module of its own that
// requires this one (through a replace directive), run, and its output
// compared with the ```output block that follows it.
func TestDocsExamples(t *testing.T) {
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(here, "..", "..")
	if dir := os.Getenv("CHARTER_SOURCE_DIR"); dir != "" {
		root = dir
	}
	text, err := os.ReadFile(filepath.Join(root, "docs", "embedding.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)\n```go\n(// example: ([A-Za-z0-9_]+)\n.*?)\n```\n(\n```output\n(.*?)```\n)?")
	matches := block.FindAllStringSubmatch(string(text), -1)
	if len(matches) == 0 {
		t.Fatal("docs/embedding.md has no Go examples")
	}
	for _, m := range matches {
		code, name, hasOutput, want := m[1], m[2], m[3] != "", m[4]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			mod := "module example\n\ngo 1.19\n\nrequire charter v0.0.0\n\nreplace charter => " + here + "\n"
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(code+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "run", ".")
			cmd.Dir = dir
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go run: %v\n%s", err, stderr.String())
			}
			if hasOutput && string(out) != want {
				t.Errorf("output differs:\n--- want\n%s--- got\n%s", want, out)
			}
		})
	}
}
