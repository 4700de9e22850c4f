package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func openStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state", "sessions")
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	return s, dir
}

func TestStoreRoundTrip(t *testing.T) {
	s, _ := openStore(t)
	if got, err := s.Get("never"); err != nil || !cmp.Equal(got, State{}) {
		t.Fatalf("Get(unknown) = %+v, %v; want zero State, nil", got, err)
	}
	states := []State{
		{Cwd: "/work/a"},
		{Cwd: "/work/b\nwith newline", Exports: map[string]string{"FOO": "a b\nc", "Q": `"'\$`, "U": "日本"}},
		{},
	}
	for i, want := range states {
		if err := s.Put("s", want); err != nil {
			t.Fatalf("Put #%d: %v", i, err)
		}
		got, err := s.Get("s")
		if err != nil {
			t.Fatalf("Get #%d: %v", i, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get #%d mismatch (-want +got):\n%s", i, diff)
		}
	}
}

func TestStorePermissions(t *testing.T) {
	s, dir := openStore(t)
	if err := s.Put("p", State{Cwd: "/w"}); err != nil {
		t.Fatal(err)
	}
	assertMode(t, dir, 0o700)
	assertMode(t, filepath.Join(dir, "p.json"), 0o600)

	// An existing, looser directory is tightened.
	loose := filepath.Join(t.TempDir(), "loose")
	if err := os.Mkdir(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(loose); err != nil {
		t.Fatalf("OpenStore(loose): %v", err)
	}
	assertMode(t, loose, 0o700)
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("mode of %s = %o, want %o", path, got, want)
	}
}

func TestOpenStoreNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := OpenStore(file)
	if err == nil || !strings.Contains(err.Error(), "create session dir") {
		t.Errorf("OpenStore(file) error = %v, want a create session dir error", err)
	}
}

func TestStoreInvalidName(t *testing.T) {
	s, dir := openStore(t)
	for _, name := range []string{"", ".", "..", "../escape", "a/b", strings.Repeat("n", 129)} {
		if _, err := s.Get(name); !errors.Is(err, ErrInvalidName) || !strings.Contains(err.Error(), fmt.Sprintf("%q", name)) {
			t.Errorf("Get(%q) error = %v, want ErrInvalidName naming it", name, err)
		}
		if err := s.Put(name, State{Cwd: "/w"}); !errors.Is(err, ErrInvalidName) {
			t.Errorf("Put(%q) error = %v, want ErrInvalidName", name, err)
		}
	}
	assertFiles(t, dir, nil)
	assertFiles(t, filepath.Dir(dir), []string{"sessions"})
}

func TestStoreUnstorable(t *testing.T) {
	s, dir := openStore(t)
	tests := []struct {
		name string
		st   State
	}{
		{"relative cwd", State{Cwd: "rel"}},
		{"cwd not UTF-8", State{Cwd: "/w\xff"}},
		{"value not UTF-8", State{Cwd: "/w", Exports: map[string]string{"A": "\xff"}}},
	}
	for _, tt := range tests {
		if err := s.Put("u", tt.st); !errors.Is(err, ErrUnstorable) {
			t.Errorf("%s: Put error = %v, want ErrUnstorable", tt.name, err)
		}
	}
	assertFiles(t, dir, nil)
}

func TestStoreCorrupt(t *testing.T) {
	tests := []struct {
		name    string
		content string
		wantMsg string
	}{
		{"empty", "", "not a JSON object"},
		{"not JSON", "cwd=/w", "not a JSON object"},
		{"null", "null", "not a JSON object"},
		{"truncated", `{"cwd":"/w"`, "unexpected EOF"},
		{"unknown field", `{"cwd":"/w","shell":"zsh"}`, `unknown field "shell"`},
		{"wrong type", `{"cwd":1}`, "cannot unmarshal number"},
		{"trailing data", `{"cwd":"/w"}{}`, "data after the JSON object"},
		{"trailing brace", `{"cwd":"/w"}}`, "data after the JSON object"},
		{"relative cwd", `{"cwd":"w"}`, "not absolute"},
		{"too large", `{"cwd":"/` + strings.Repeat("w", maxFileSize) + `"}`, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t)
			path := filepath.Join(dir, "c.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get("c")
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.wantMsg) || !strings.Contains(err.Error(), path) {
				t.Errorf("Get error = %v, want ErrCorrupt naming %s and %q", err, path, tt.wantMsg)
			}
			if diff := cmp.Diff(State{}, got); diff != "" {
				t.Errorf("Get state mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStoreConcurrent(t *testing.T) {
	s, dir := openStore(t)
	const writers, rounds = 8, 20
	state := func(w, i int) State {
		return State{Cwd: fmt.Sprintf("/w/%d/%d", w, i), Exports: map[string]string{"W": fmt.Sprint(w), "BIG": strings.Repeat("x", 1000*w)}}
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds*2)
	for w := range writers {
		wg.Go(func() {
			for i := range rounds {
				name := fmt.Sprintf("shared-%d", i%2) // contended
				if err := s.Put(name, state(w, i)); err != nil {
					errs <- err
				}
				got, err := s.Get(name)
				if err != nil {
					errs <- err
					continue
				}
				// Whatever won, it must be one whole state some writer put.
				var gw, gi int
				if _, err := fmt.Sscanf(got.Cwd, "/w/%d/%d", &gw, &gi); err != nil || !cmp.Equal(got, state(gw, gi)) {
					errs <- fmt.Errorf("Get(%s) = torn state %+v", name, got.Cwd)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assertFiles(t, dir, []string{"shared-0.json", "shared-1.json"}) // no temp files left
	// What the store remembers is what is on disk, whichever Put won.
	fresh, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"shared-0", "shared-1"} {
		want, err := fresh.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get(%s) after the race (-on disk +remembered):\n%s", name, diff)
		}
	}
}

// TestStoreSeesOutsideChanges: the states a Store remembers give way to a
// file changed in place, replaced or removed behind its back, and a caller
// changing what Get returned changes nothing the Store holds.
func TestStoreSeesOutsideChanges(t *testing.T) {
	s, dir := openStore(t)
	path := filepath.Join(dir, "s.json")
	if err := s.Put("s", State{Cwd: "/work/a", Exports: map[string]string{"A": "1"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("s")
	if err != nil {
		t.Fatal(err)
	}
	got.Exports["A"] = "changed by the caller"
	if again, err := s.Get("s"); err != nil || again.Exports["A"] != "1" {
		t.Fatalf("Get after the caller changed its copy = %+v, %v; want A=1", again, err)
	}
	steps := []struct {
		name   string
		change func() error
		want   State
	}{
		{"edited in place, same size", func() error {
			if err := os.WriteFile(path, []byte(`{"cwd":"/work/b","exports":{"A":"1"}}`), 0o600); err != nil {
				return err
			}
			// Some file systems keep coarse times: make the change visible.
			later := time.Now().Add(time.Minute)
			return os.Chtimes(path, later, later)
		}, State{Cwd: "/work/b", Exports: map[string]string{"A": "1"}}},
		{"replaced", func() error {
			tmp := path + ".new"
			if err := os.WriteFile(tmp, []byte(`{"cwd":"/work/c"}`), 0o600); err != nil {
				return err
			}
			return os.Rename(tmp, path)
		}, State{Cwd: "/work/c"}},
		{"removed", func() error { return os.Remove(path) }, State{}},
	}
	for _, step := range steps {
		if err := step.change(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got, err := s.Get("s")
		if err != nil {
			t.Fatalf("%s: Get: %v", step.name, err)
		}
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s: Get (-want +got):\n%s", step.name, diff)
		}
	}
}

// assertFiles fails unless dir holds exactly the names in want.
func assertFiles(t *testing.T, dir string, want []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files in %s mismatch (-want +got):\n%s", dir, diff)
	}
}

// FuzzDecodeState checks that no file content panics the decoder and that
// whatever it accepts has an absolute or empty cwd.
func FuzzDecodeState(f *testing.F) {
	f.Add([]byte(`{"cwd":"/w","exports":{"A":"1"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := decodeState(b)
		if err != nil {
			return
		}
		if st.Cwd != "" && !filepath.IsAbs(st.Cwd) {
			t.Errorf("accepted relative cwd %q", st.Cwd)
		}
	})
}
