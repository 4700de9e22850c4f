package templates

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestShippedTemplates(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var got []string
	for _, tpl := range c.List() {
		got = append(got, tpl.Name)
	}
	want := []string{"anthropic", "debian", "discord", "google", "goproxy", "hermes-update", "nous", "npm", "openai", "openrouter", "pypi", "slack", "telegram"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
}

func TestResolve(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref     string
		want    string
		wantErr error
	}{
		{"openai", "template:openai@1", nil},
		{"openai@1", "template:openai@1", nil},
		{"openai@2", "", ErrVersion},
		{"nope", "", ErrUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			got, err := c.Resolve(tc.ref)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Resolve(%q) error = %v, want %v", tc.ref, err, tc.wantErr)
			}
			if err == nil && got.Rule() != tc.want {
				t.Errorf("Rule = %q, want %q", got.Rule(), tc.want)
			}
		})
	}
	if _, err := c.Resolve("openai@x"); err == nil || err.Error() != `template reference "openai@x": the version after @ must be a positive number` {
		t.Errorf("Resolve(openai@x) error = %v", err)
	}
}

func TestLoadRejectsBadTemplates(t *testing.T) {
	tests := map[string]struct {
		file, body, want string
	}{
		"name differs": {"a", "name: b\nversion: 1\ndescription: d\nnames: [x.com]\n", `template data/a.yaml: name "b" differs from the file name`},
		"no version":   {"a", "name: a\ndescription: d\nnames: [x.com]\n", "template data/a.yaml: version 0: want 1 or more"},
		"bad pattern":  {"a", "name: a\nversion: 1\nnames: [\"x.*.com\"]\n", `template data/a.yaml: bad name pattern: "x.*.com": character '*' not allowed (only a-z, 0-9, '-', '_'; a wildcard only as a leading "*.")`},
		"unknown key":  {"a", "name: a\nversion: 1\nnames: [x.com]\nextra: 1\n", "template data/a.yaml: yaml: unmarshal errors:\n  line 4: field extra not found in type templates.Template"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := load(fstest.MapFS{"data/" + tc.file + ".yaml": {Data: []byte(tc.body)}})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v\nwant    %s", err, tc.want)
			}
		})
	}
}
