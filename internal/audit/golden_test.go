package audit

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the generator")

// TestGoldenFiles regenerates every file under testdata/ (chains, the rotated
// set and the FuzzVerifyLines seeds) and compares it byte for byte with the
// committed copy; with -update it writes them instead:
//
//	go test ./internal/audit -run TestGoldenFiles -update
//
// A difference without -update means the record encoding changed, which
// breaks every verifier written against the package doc's spec.
func TestGoldenFiles(t *testing.T) {
	files := generateGolden(t)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, files[name], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run with -update to create it)", err)
			continue
		}
		if !bytes.Equal(got, files[name]) {
			t.Errorf("%s is not what the generator makes now; if the change is intended, run with -update", path)
		}
	}
}

// goldenRecords are the records of testdata/chain/good.jsonl.
func goldenRecords() []Record {
	exit0, exit1 := 0, 1
	dur, out := int64(12), int64(4096)
	trunc := false
	return []Record{
		{Event: EventDecision, RequestID: "r1", Session: "default", Client: "127.0.0.1:50001", Command: "ls -la", Cwd: "/work", Decision: DecisionAllow, Approval: "policy"},
		{Event: EventResult, RequestID: "r1", Session: "default", Client: "127.0.0.1:50001", Command: "ls -la", Cwd: "/work", Decision: DecisionAllow, Approval: "policy", ExitCode: &exit0, DurationMs: &dur, OutputBytes: &out, Truncated: &trunc},
		{Event: EventDecision, RequestID: "r2", Session: "build", Client: "127.0.0.1:50002", Command: "git push https://alice:hunter2@example.com/repo.git", Cwd: "/work/repo", Decision: DecisionAllow, Approval: "user"},
		{Event: EventResult, RequestID: "r2", Session: "build", Client: "127.0.0.1:50002", Command: "git push https://alice:hunter2@example.com/repo.git", Cwd: "/work/repo", Decision: DecisionAllow, Approval: "user", ExitCode: &exit1, DurationMs: &dur, OutputBytes: &out, Truncated: &trunc},
		{Event: EventDecision, RequestID: "r3", Session: "default", Client: "127.0.0.1:50003", Command: "rm -rf /", Cwd: "/work", Decision: DecisionDeny, Approval: "hard_deny", Rule: "rm-root", Reason: "deletes the root file system"},
		{Event: EventDecision, RequestID: "r4", Session: "default", Client: "127.0.0.1:50004", Command: "make test", Cwd: "/work", Decision: DecisionAllow, Approval: "grant"},
	}
}

// generateGolden builds every golden file, keyed by its path under testdata/.
func generateGolden(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}

	dir := t.TempDir()
	l := openTest(t, Options{Dir: dir})
	recs := goldenRecords()
	appendN(t, l, len(recs), func(i int) Record { return recs[i] })
	good, err := os.ReadFile(filepath.Join(dir, liveName))
	if err != nil {
		t.Fatal(err)
	}
	lines := splitLines(good)
	for name, tamper := range tampers(t) {
		files["chain/"+name+".jsonl"] = bytes.Join(tamper(slices.Clone(lines)), nil)
	}

	for name, data := range rotatedSet(t) {
		files["rotated/"+name] = data
	}

	for name, data := range files {
		if !strings.HasPrefix(name, "chain/") {
			continue
		}
		seed := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbool(false)\n", data)
		files["fuzz/FuzzVerifyLines/"+strings.TrimSuffix(filepath.Base(name), ".jsonl")] = []byte(seed)
	}
	files["fuzz/FuzzVerifyLines/empty_anchored"] = []byte("go test fuzz v1\n[]byte(\"\")\nbool(true)\n")
	files["fuzz/FuzzVerifyLines/good_anchored"] = []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbool(true)\n", good))
	return files
}

// tampers maps each golden chain name to how it is made from the good
// chain's lines (each with its newline). Expected failures are in
// TestVerifyGoldenChains.
func tampers(t *testing.T) map[string]func(lines [][]byte) [][]byte {
	t.Helper()
	return map[string]func([][]byte) [][]byte{
		"good": func(ls [][]byte) [][]byte { return ls },
		"edited_field": func(ls [][]byte) [][]byte {
			ls[2] = replaceOnce(t, ls[2], `"decision":"allow"`, `"decision":"deny"`)
			return ls
		},
		"edited_hash": func(ls [][]byte) [][]byte {
			h := recordOf(t, ls[1]).Hash
			ls[1] = replaceOnce(t, ls[1], h, strings.Repeat("f", len(h)))
			return ls
		},
		"no_hash": func(ls [][]byte) [][]byte {
			h := recordOf(t, ls[4]).Hash
			ls[4] = replaceOnce(t, ls[4], `,"hash":"`+h+`"`, "")
			return ls
		},
		"reordered": func(ls [][]byte) [][]byte {
			ls[2], ls[3] = ls[3], ls[2]
			return ls
		},
		"deleted_middle": func(ls [][]byte) [][]byte {
			return slices.Delete(ls, 2, 3)
		},
		"duplicated_line": func(ls [][]byte) [][]byte {
			return slices.Insert(ls, 3, ls[2])
		},
		"torn_tail": func(ls [][]byte) [][]byte {
			last := ls[len(ls)-1]
			ls[len(ls)-1] = last[:len(last)/2]
			return ls
		},
		"bad_prev": func(ls [][]byte) [][]byte {
			// A forger who recomputes the record's own hash still breaks
			// the link to the record before.
			ls[3] = rehash(t, ls[3], func(r *Record) { r.Prev = recordOf(t, ls[1]).Hash })
			return ls
		},
		"bad_genesis": func(ls [][]byte) [][]byte {
			ls[0] = rehash(t, ls[0], func(r *Record) { r.Prev = strings.Repeat("ab", 32) })
			return ls
		},
		"not_json": func(ls [][]byte) [][]byte {
			return slices.Insert(ls, 2, []byte("this is not JSON\n"))
		},
	}
}

// rotatedSet is a chain of 9 records over three files, backups renamed to
// fixed times so that the set is reproducible.
func rotatedSet(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	l := openTest(t, Options{Dir: dir, MaxBackups: 100, maxBytes: 1200})
	appendN(t, l, 9, sample)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	backups := backupNames(t, dir)
	if len(backups) != 2 {
		t.Fatalf("rotated set has backups %v, want 2; adjust maxBytes", backups)
	}
	out := map[string][]byte{}
	for i, name := range append(backups, liveName) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name != liveName {
			name = fmt.Sprintf("audit-2025-01-02T03-05-0%d.000.jsonl", i)
		}
		out[name] = data
	}
	return out
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

func replaceOnce(t *testing.T, line []byte, old, new string) []byte {
	t.Helper()
	if bytes.Count(line, []byte(old)) != 1 {
		t.Fatalf("%q occurs %d times in %s", old, bytes.Count(line, []byte(old)), line)
	}
	return bytes.Replace(line, []byte(old), []byte(new), 1)
}

func recordOf(t *testing.T, line []byte) Record {
	t.Helper()
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// rehash edits a record and writes it again with a hash that matches.
func rehash(t *testing.T, line []byte, edit func(*Record)) []byte {
	t.Helper()
	r := recordOf(t, line)
	edit(&r)
	out, _, err := encodeLine(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
