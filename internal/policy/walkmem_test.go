package policy

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClassifyAfterOtherCommands holds a classifier that has classified
// other commands before (its parsers and walk memory reused) to the verdict
// a fresh classifier gives: nothing of one command may reach the next.
func TestClassifyAfterOtherCommands(t *testing.T) {
	fx := newFixture(t)
	cfg := fx.config(ModeAsk)
	warm := fx.classifier(t, cfg)
	var cmds []string
	for _, path := range []string{"testdata/hostile.txt", "testdata/safe.txt"} {
		fields := 2
		if path == "testdata/hostile.txt" {
			fields = 3
		}
		for _, e := range readTable(t, path, fields) {
			cmds = append(cmds, fx.expand(e.cmd))
		}
	}
	cmds = append(cmds, benchCorpus(fx)...)
	// Big before small and small before big, and each command twice.
	for round := range 2 {
		for i := range cmds {
			cmd := cmds[i]
			if round == 1 {
				cmd = cmds[len(cmds)-1-i]
			}
			got := warm.Classify(cmd, fx.ws)
			want := fx.classifier(t, cfg).Classify(cmd, fx.ws)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round %d: Classify(%.80q) after other commands (-fresh +warm):\n%s", round, cmd, diff)
			}
		}
	}
}

// TestClassifyConcurrently runs one classifier from several goroutines at
// once, as the daemon does for concurrent requests, and holds every verdict
// to the one the same classifier gave alone: its pools must never hand one
// call's memory to another. Run it with -race.
func TestClassifyConcurrently(t *testing.T) {
	fx := newFixture(t)
	c := fx.classifier(t, fx.config(ModeAsk))
	cmds := benchCorpus(fx)
	for _, e := range readTable(t, "testdata/hostile.txt", 3) {
		cmds = append(cmds, fx.expand(e.cmd))
	}
	want := make([]Verdict, len(cmds))
	for i, cmd := range cmds {
		want[i] = c.Classify(cmd, fx.ws)
	}
	const workers = 4
	errs := make(chan string, workers)
	for w := range workers {
		go func() {
			for i := range cmds {
				j := (i + w*len(cmds)/workers) % len(cmds) // each worker starts elsewhere
				if diff := cmp.Diff(want[j], c.Classify(cmds[j], fx.ws)); diff != "" {
					errs <- fmt.Sprintf("worker %d: Classify(%.80q) (-alone +concurrent):\n%s", w, cmds[j], diff)
					return
				}
			}
			errs <- ""
		}()
	}
	for range workers {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
}
