package config

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"
)

// reader walks a yaml.Node tree and collects every problem with its line.
type reader struct {
	file string
	errs []error
}

func (r *reader) errorf(n *yaml.Node, field, format string, args ...any) {
	e := &Error{File: r.file, Field: field, Problem: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	r.errs = append(r.errs, e)
}

func (r *reader) errorAt(line, col int, field, format string, args ...any) {
	r.errs = append(r.errs, &Error{File: r.file, Line: line, Column: col, Field: field, Problem: fmt.Sprintf(format, args...)})
}

// hasKey reports whether the mapping n has the key k.
func hasKey(n *yaml.Node, k string) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return true
		}
	}
	return false
}

// fields calls set for each key of the mapping n, reporting keys not in
// set and keys given twice.
func (r *reader) fields(n *yaml.Node, field string, set map[string]func(v *yaml.Node, field string)) {
	if n.Kind != yaml.MappingNode {
		r.errorf(n, field, "want a mapping of keys to values")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		sub := k.Value
		if field != "" {
			sub = field + "." + k.Value
		}
		fn, ok := set[k.Value]
		switch {
		case !ok:
			r.errorf(k, sub, "unknown key")
		case seen[k.Value]:
			r.errorf(k, sub, "given twice")
		default:
			seen[k.Value] = true
			fn(v, sub)
		}
	}
}

// items calls each for every element of the sequence n.
func (r *reader) items(n *yaml.Node, field string, each func(v *yaml.Node, field string)) {
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, field, "want a list")
		return
	}
	for i, v := range n.Content {
		each(v, fmt.Sprintf("%s[%d]", field, i))
	}
}

func (r *reader) str(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		r.errorf(n, field, "want a string")
		return "", false
	}
	return n.Value, true
}

func (r *reader) strs(n *yaml.Node, field string) []string {
	var out []string
	r.items(n, field, func(v *yaml.Node, f string) {
		if s, ok := r.str(v, f); ok {
			out = append(out, s)
		}
	})
	return out
}

func (r *reader) boolean(n *yaml.Node, field string) (bool, bool) {
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		r.errorf(n, field, "want true or false, got %q", n.Value)
		return false, false
	}
	return b, true
}

func (r *reader) integer(n *yaml.Node, field string, lo, hi int) (int, bool) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil {
		r.errorf(n, field, "want a whole number, got %q", n.Value)
		return 0, false
	}
	if v < lo || v > hi {
		r.errorf(n, field, "want %d to %d, got %d", lo, hi, v)
		return 0, false
	}
	return v, true
}
