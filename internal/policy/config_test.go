package policy

import (
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{ModeAsk, ModeAllow, ModeReadOnly, ModeDeny} {
		got, err := ParseMode(string(m))
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, nil", m, got, err, m)
		}
	}
	_, err := ParseMode("readonly")
	if !errors.Is(err, ErrInvalidMode) {
		t.Fatalf("ParseMode(readonly) error = %v, want ErrInvalidMode", err)
	}
	want := `invalid approval mode "readonly": valid modes are ask, allow, read-only and deny`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("error text (-want +got):\n%s", diff)
	}
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"bad-mode", Config{Mode: "maybe", Workspace: "/ws"}, ErrInvalidMode},
		{"empty-mode", Config{Workspace: "/ws"}, ErrInvalidMode},
		{"relative-workspace", Config{Mode: ModeAsk, Workspace: "ws"}, ErrInvalidConfig},
		{"empty-workspace", Config{Mode: ModeAsk}, ErrInvalidConfig},
		{"relative-home", Config{Mode: ModeAsk, Workspace: "/ws", Home: "home"}, ErrInvalidConfig},
		{"relative-state", Config{Mode: ModeAsk, Workspace: "/ws", StateDir: ".sidecar"}, ErrInvalidConfig},
		{"nil-rule", Config{Mode: ModeAsk, Workspace: "/ws", Deny: []*regexp.Regexp{nil}}, ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if !errors.Is(err, tt.want) || c != nil {
				t.Errorf("New() = %v, %v; want nil, %v", c, err, tt.want)
			}
		})
	}
}

func TestWithMode(t *testing.T) {
	fx := newFixture(t)
	ask := fx.classifier(t, fx.config(ModeAsk))
	deny := ask.WithMode(ModeDeny)
	if got := ask.Classify("make", fx.ws).Decision; got != Ask {
		t.Errorf("original classifier: %s, want ask (WithMode must copy)", got)
	}
	if got := deny.Classify("make", fx.ws).Decision; got != Deny {
		t.Errorf("WithMode(deny): %s, want deny", got)
	}
}

// TestClassifyConcurrent runs one classifier from many goroutines; run with
// -race it shows Classify shares no mutable state.
func TestClassifyConcurrent(t *testing.T) {
	fx := newFixture(t)
	c := fx.classifier(t, fx.config(ModeAsk))
	cmds := []string{hermesReadProbe, "cat out/secret.txt", "sudo id", "cd sub && ls", "echo 'x"}
	want := make([]Verdict, len(cmds))
	for i, cmd := range cmds {
		want[i] = c.Classify(cmd, fx.ws)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 20; n++ {
				i := (g + n) % len(cmds)
				if diff := cmp.Diff(want[i], c.Classify(cmds[i], fx.ws)); diff != "" {
					errs <- strings.Join([]string{cmds[i], diff}, "\n")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
