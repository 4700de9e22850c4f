package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseFileGood(t *testing.T) {
	data, err := os.ReadFile("testdata/policy/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseFile("policy.yaml", data, "/home/ada")
	if err != nil {
		t.Fatalf("ParseFile: %v", err)
	}
	want := &File{
		Path: "policy.yaml",
		Deny: []FileRule{
			{Prefix: "git push", Reason: "pushing is done by the person", Line: 4},
			{Regex: `\bterraform\s+destroy\b`, Line: 6},
		},
		Allow: []FileRule{
			{Prefix: "go test", Line: 8},
			{Prefix: "npm run lint", Line: 9},
			{Regex: `^make( [a-z-]+)*$`, Line: 10},
		},
		SafeCommands:   []string{"jq", "yq"},
		SensitivePaths: []string{"/home/ada/.aws", "/srv/secrets"},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(FileRule{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestParseFileErrors checks that every problem is reported, each with
// the line and column it is on.
func TestParseFileErrors(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"empty.yaml", nil},
		{"bad_many.yaml", []string{
			"p.yaml:1:10: version must be 1",
			`p.yaml:4:12: regex "(unclosed" does not compile: error parsing regexp: missing closing ): ` + "`(unclosed`",
			`p.yaml:5:13: prefix word "$HOME" is not a plain word: write the words as the command has them, without quotes or shell syntax, or use a regex`,
			`p.yaml:6:13: prefix "/usr/bin/git status" must start with a command name, not a path`,
			"p.yaml:7:5: a allow rule needs exactly one of prefix and regex",
			"p.yaml:8:5: a allow rule needs exactly one of prefix and regex",
			"p.yaml:9:7: deny must be a list of rules such as {prefix: git push} or {regex: '^make '}",
			"p.yaml:10:17: bash cannot be a safe command: it is an interpreter that runs code given to it; use an allow rule for the exact uses you want",
			"p.yaml:10:27: ls is already on the safe list, with its own argument checks",
			`p.yaml:10:31: safe command "x y" must be a bare command name`,
			`p.yaml:11:19: sensitive path "relative/path" must be absolute or start with ~/`,
			"p.yaml:11:34: sensitive path / would deny every command",
			`p.yaml:12:1: unknown key "colour": valid keys are version, deny, allow, safe_commands, sensitive_paths`,
		}},
		{"bad_yaml.yaml", []string{"p.yaml:2:1: not valid YAML: did not find expected key"}},
		{"bad_top.yaml", []string{"p.yaml:1:1: the policy file must be a mapping with keys version, deny, allow, safe_commands, sensitive_paths"}},
		{"dup.yaml", []string{"p.yaml:3:1: allow is given twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata/policy", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseFile("p.yaml", data, "/home/ada")
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
				var fe *FileError
				if !errors.As(err, &fe) || fe.Line == 0 {
					t.Errorf("error %v is not a *FileError with a line", err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(good, []byte("allow:\n  - prefix: go test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := LoadFile(good, ""); err != nil || len(f.Allow) != 1 {
		t.Errorf("LoadFile(good) = %+v, %v", f, err)
	}
	loose := filepath.Join(dir, "loose.yaml")
	if err := os.WriteFile(loose, []byte("allow: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(loose, ""); !errors.Is(err, ErrUnsafeFile) || !strings.Contains(err.Error(), "chmod go-w") {
		t.Errorf("LoadFile(group-writable) error = %v, want ErrUnsafeFile with the fix", err)
	}
	if _, err := LoadFile(filepath.Join(dir, "none.yaml"), ""); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadFile(missing) error = %v, want fs.ErrNotExist", err)
	}
	if _, err := LoadFile(dir, ""); !errors.Is(err, ErrUnsafeFile) {
		t.Errorf("LoadFile(directory) error = %v, want ErrUnsafeFile", err)
	}
}

// FuzzParseFile checks that any text either parses into a file whose rules
// all compile into a classifier, or fails with *FileError values only.
func FuzzParseFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data string) {
		file, err := ParseFile("p.yaml", []byte(data), "/home/ada")
		if err != nil {
			for _, e := range unjoin(err) {
				var fe *FileError
				if !errors.As(e, &fe) || fe.Line < 1 {
					t.Fatalf("error %v (%T) is not a *FileError with a line", e, e)
				}
			}
			return
		}
		if _, err := New(Config{Mode: ModeAsk, Workspace: "/ws", File: file}); err != nil {
			t.Fatalf("a file that parses is refused by New: %v", err)
		}
	})
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
