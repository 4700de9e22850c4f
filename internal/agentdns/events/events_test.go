package events

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func ev(i int, event, policy string) *Event {
	return &Event{Time: t0.Add(time.Duration(i) * time.Second), Event: event, Policy: policy, Name: fmt.Sprintf("n%d.example", i)}
}

func TestWriteTail(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{MaxSizeMB: 1, MaxBackups: 2})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(ev(1, NewQuery, "a"))
	w.Write(ev(2, Held, "b"))
	w.Write(ev(3, NewQuery, "b"))
	w.Write(&Event{Time: t0, Event: Query, Policy: "a", Name: "x.example", Type: "A", Decision: DecisionAllow,
		Rule: "mode:learn", Rcode: "NOERROR", Answers: []string{"192.0.2.1"}, Cached: true, LatencyMs: 0.25, Client: "127.0.0.1:5000", Listener: "host"})
	if got, _ := Tail(dir, Filter{}, 10); len(got) != 0 {
		t.Errorf("events visible before Flush: %d", len(got))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log mode = %v, %v; want 0600", st.Mode(), err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileName))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	wantLast := `{"time":"2026-01-02T03:04:05Z","event":"query","policy":"a","client":"127.0.0.1:5000","listener":"host","name":"x.example","type":"A","decision":"allow","rule":"mode:learn","rcode":"NOERROR","answers":["192.0.2.1"],"cached":true,"latency_ms":0.25}`
	if len(lines) != 4 || lines[3] != wantLast {
		t.Errorf("log lines = %q\nwant last %s", lines, wantLast)
	}
	tests := []struct {
		name  string
		f     Filter
		limit int
		want  []string
	}{
		{"all", Filter{}, 10, []string{"n1.example", "n2.example", "n3.example", "x.example"}},
		{"limit keeps newest", Filter{}, 2, []string{"n3.example", "x.example"}},
		{"by event", Filter{Event: NewQuery}, 10, []string{"n1.example", "n3.example"}},
		{"by policy and event", Filter{Event: NewQuery, Policy: "b"}, 10, []string{"n3.example"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Tail(dir, tc.f, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range got {
				names = append(names, e.Name)
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("Tail (-want +got):\n%s", diff)
			}
		})
	}
	if err := w.Flush(); err != ErrClosed {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
}

func TestRotationKeepsWholeLines(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{MaxSizeMB: 1, MaxBackups: 5})
	if err != nil {
		t.Fatal(err)
	}
	const n = 12000 // about 1.3 MB: one rotation
	for i := 0; i < n; i++ {
		w.Write(&Event{Time: t0, Event: Query, Policy: "p", Name: fmt.Sprintf("n%d.example", i), Detail: strings.Repeat("x", 40)})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := Files(dir)
	if err != nil || len(files) < 2 {
		t.Fatalf("Files = %v, %v; want a rotated file and the current one", files, err)
	}
	got, err := Tail(dir, Filter{}, n+10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || got[0].Name != "n0.example" || got[n-1].Name != fmt.Sprintf("n%d.example", n-1) {
		t.Errorf("read back %d events (first %q), want %d in order", len(got), got[0].Name, n)
	}
}

func TestFollow(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{MaxSizeMB: 1, MaxBackups: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write(ev(0, NewQuery, "p")) // before Follow starts: beyond the tail of 1
	w.Write(ev(1, NewQuery, "p")) // the tail
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, dir, Filter{Event: NewQuery}, 1, 10*time.Millisecond, func(e Event) { got <- e.Name })
	}()
	w.Write(ev(2, Held, "p"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := []string{"n1.example", "n3.example", "n4.example"}
	expect := func(name string) {
		t.Helper()
		select {
		case n := <-got:
			if n != name {
				t.Errorf("followed %q, want %q", n, name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event %q followed", name)
		}
	}
	expect(want[0])
	if err := w.out.Rotate(); err != nil {
		t.Fatal(err)
	}
	w.Write(ev(3, NewQuery, "p"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	expect(want[1])
	w.Write(ev(4, NewQuery, "p"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	expect(want[2])
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Follow = %v", err)
	}
}
