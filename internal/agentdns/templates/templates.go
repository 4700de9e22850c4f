// Package templates holds the allow-list templates Agent DNS ships as data:
// the names a model provider, messaging platform or package registry needs.
// Each template is a versioned YAML file under data/, embedded at build
// time; a policy imports one by name, optionally pinning its version
// ("openai@1") so a changed template is reviewed before it takes effect.
package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sidecarhq/sidecar/internal/agentdns/policy"
)

//go:embed data/*.yaml
var data embed.FS

// Errors callers branch on.
var (
	ErrUnknown = errors.New("unknown template")
	ErrVersion = errors.New("template version mismatch")
)

// Template is one shipped template.
type Template struct {
	Name        string   `yaml:"name"`
	Version     int      `yaml:"version"`
	Description string   `yaml:"description"`
	Names       []string `yaml:"names"`
}

// Rule is how decisions name this template: "template:NAME@VERSION".
func (t Template) Rule() string { return fmt.Sprintf("template:%s@%d", t.Name, t.Version) }

// Catalog is the set of shipped templates, read once. It is immutable and
// safe for concurrent use.
type Catalog struct {
	byName map[string]Template
}

// Load reads and checks every embedded template.
func Load() (*Catalog, error) {
	return load(data)
}

func load(fsys fs.FS) (*Catalog, error) {
	files, err := fs.Glob(fsys, "data/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("list templates: %w", err)
	}
	c := &Catalog{byName: map[string]Template{}}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("read template %s: %w", f, err)
		}
		var t Template
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("template %s: %w", f, err)
		}
		if err := t.check(strings.TrimSuffix(path.Base(f), ".yaml")); err != nil {
			return nil, fmt.Errorf("template %s: %w", f, err)
		}
		c.byName[t.Name] = t
	}
	return c, nil
}

func (t Template) check(file string) error {
	switch {
	case t.Name != file:
		return fmt.Errorf("name %q differs from the file name", t.Name)
	case t.Version < 1:
		return fmt.Errorf("version %d: want 1 or more", t.Version)
	case len(t.Names) == 0:
		return errors.New("no names")
	}
	for _, n := range t.Names {
		if err := policy.CheckPattern(n); err != nil {
			return err
		}
	}
	return nil
}

// List returns every template, sorted by name.
func (c *Catalog) List() []Template {
	out := make([]Template, 0, len(c.byName))
	for _, t := range c.byName {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Get returns the template named name.
func (c *Catalog) Get(name string) (Template, error) {
	t, ok := c.byName[name]
	if !ok {
		return Template{}, fmt.Errorf("%w %q (have: %s)", ErrUnknown, name, strings.Join(c.names(), ", "))
	}
	return t, nil
}

// Resolve returns the template a policy's reference names: "NAME" takes
// the shipped version, "NAME@V" requires it to be version V.
func (c *Catalog) Resolve(ref string) (Template, error) {
	name, ver, pinned := strings.Cut(ref, "@")
	t, err := c.Get(name)
	if err != nil || !pinned {
		return t, err
	}
	v, err := strconv.Atoi(ver)
	if err != nil || v < 1 {
		return Template{}, fmt.Errorf("template reference %q: the version after @ must be a positive number", ref)
	}
	if v != t.Version {
		return Template{}, fmt.Errorf("%w: %s is pinned at version %d but version %d ships; review it with `sidecar dns templates show %s` and update the pin",
			ErrVersion, name, v, t.Version, name)
	}
	return t, nil
}

func (c *Catalog) names() []string {
	var out []string
	for _, t := range c.List() {
		out = append(out, t.Name)
	}
	return out
}
