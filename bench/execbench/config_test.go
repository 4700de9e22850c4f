package main

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIntListSet(t *testing.T) {
	tests := []struct {
		in      string
		want    intList
		wantErr bool
	}{
		{"1,8,64", intList{1, 8, 64}, false},
		{" 2 , 4", intList{2, 4}, false},
		{"", nil, false},
		{"0", nil, true},
		{"1,x", nil, true},
	}
	for _, tt := range tests {
		var got intList
		err := got.Set(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("Set(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Set(%q) (-want +got):\n%s", tt.in, diff)
			}
		}
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"execbench", "-sidecar", "/x/sidecar", "-c", "1,2", "-no-audit-c", "", "-n", "10", "-rounds", "1"}, io.Discard)
	if err != nil {
		t.Fatalf("parseFlags: %v", err)
	}
	type parsed struct {
		Sidecar       string
		Levels        []int
		NoAuditLevels []int
		Requests      int
		CommandLine   string
	}
	got := parsed{cfg.sidecar, cfg.levels, cfg.noAuditLevels, cfg.requests, cfg.commandLine}
	want := parsed{"/x/sidecar", []int{1, 2}, nil, 10, "execbench -sidecar /x/sidecar -c 1,2 -no-audit-c '' -n 10 -rounds 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseFlags (-want +got):\n%s", diff)
	}
}

func TestParseFlagsRejects(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no binary", []string{"execbench"}, "-sidecar is required"},
		{"ssh port without key", []string{"execbench", "-sidecar", "s", "-ssh-port", "22"}, "-ssh-port needs -ssh-key and -ssh-control"},
		{"no levels", []string{"execbench", "-sidecar", "s", "-c", ""}, "-c needs at least one level"},
		{"rounds above requests", []string{"execbench", "-sidecar", "s", "-n", "3", "-rounds", "4"}, "-rounds must be between 1 and -n"},
		{"rounds smaller than a level", []string{"execbench", "-sidecar", "s", "-n", "200", "-rounds", "4"}, "-n / -rounds must be at least the highest concurrency level"},
		{"stray argument", []string{"execbench", "-sidecar", "s", "extra"}, `unexpected arguments: ["extra"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard)
			if err == nil || err.Error() != tt.want {
				t.Errorf("parseFlags(%q) error = %v, want %q", tt.args, err, tt.want)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	got := shellQuote([]string{"a", "b c", "it's", "-x=1,2", ""})
	want := `a 'b c' 'it'\''s' -x=1,2 ''`
	if got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}
}
