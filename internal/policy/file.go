package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// FileName is the policy file's name in the state directory.
const FileName = "policy.yaml"

// MaxFileBytes bounds a policy file: it is configuration, not data.
const MaxFileBytes = 1 << 20

// ErrUnsafeFile reports a policy file that someone other than its owner
// could change, or that belongs to another user: its rules would not be
// the local user's.
var ErrUnsafeFile = errors.New("policy file is not safe to use")

// File is a parsed policy file: local rules and lists that add to the
// built-in policy. It can make the policy stricter anywhere, and looser
// only through allow rules and extra safe commands, which never beat a
// deny rule or a hard-deny category. Create it with LoadFile or ParseFile;
// it is not changed afterwards.
type File struct {
	Path string
	// Deny and Allow are the rules in the order written; deny rules come
	// first whatever the order in the file.
	Deny, Allow []FileRule
	// SafeCommands are names added to the safe list: safe with plain
	// literal arguments whose path-like words lie in the workspace.
	SafeCommands []string
	// SensitivePaths are absolute (~ expanded) and clean: any command
	// naming a path inside one is hard-denied.
	SensitivePaths []string
}

// FileRule is one rule of a policy file: exactly one of Prefix and Regex.
type FileRule struct {
	Prefix string // words separated by single spaces
	Regex  string
	Reason string // optional words for the agent, shown with a denial
	Line   int
	words  []string
	re     *regexp.Regexp
}

// FileError is one problem in a policy file, at a line and column.
type FileError struct {
	Path         string
	Line, Column int
	Msg          string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
}

// LoadFile reads and parses the policy file at path, with ~ meaning home.
// The file must be owned by the current user and writable by nobody else
// (ErrUnsafeFile). A missing file is an error wrapping fs.ErrNotExist.
func LoadFile(path, home string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open policy file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open policy file: %w", err)
	}
	if err := checkFileOwner(path, info); err != nil {
		return nil, err
	}
	data := make([]byte, MaxFileBytes+1)
	n, err := readFull(f, data)
	if err != nil {
		return nil, fmt.Errorf("read policy file %s: %w", path, err)
	}
	if n > MaxFileBytes {
		return nil, &FileError{Path: path, Line: 1, Column: 1, Msg: fmt.Sprintf("the file is larger than %d bytes", MaxFileBytes)}
	}
	return ParseFile(path, data[:n], home)
}

// ParseFile parses the policy file text data, named path in errors, with ~
// meaning home. It reports every problem it finds, each a *FileError
// naming its line, joined with errors.Join.
func ParseFile(path string, data []byte, home string) (*File, error) {
	p := &fileParser{file: &File{Path: path}, home: home}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &FileError{Path: path, Line: yamlErrorLine(err), Column: 1, Msg: "not valid YAML: " + yamlErrorText(err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return p.file, nil // an empty file adds nothing
	}
	p.top(doc.Content[0])
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return p.file, nil
}

// fileParser walks the YAML tree, collecting the file and its problems.
type fileParser struct {
	file *File
	home string
	errs []error
}

func (p *fileParser) fail(n *yaml.Node, format string, a ...any) {
	p.errs = append(p.errs, &FileError{Path: p.file.Path, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf(format, a...)})
}

// top reads the top-level mapping.
func (p *fileParser) top(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.fail(n, "the policy file must be a mapping with keys version, deny, allow, safe_commands, sensitive_paths")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if seen[key.Value] {
			p.fail(key, "%s is given twice", key.Value)
			continue
		}
		seen[key.Value] = true
		switch key.Value {
		case "version":
			if val.Kind != yaml.ScalarNode || val.Value != "1" {
				p.fail(val, "version must be 1")
			}
		case "deny":
			p.file.Deny = p.rules(val, false)
		case "allow":
			p.file.Allow = p.rules(val, true)
		case "safe_commands":
			p.file.SafeCommands = p.safeCommands(val)
		case "sensitive_paths":
			p.file.SensitivePaths = p.sensitivePaths(val)
		default:
			p.fail(key, "unknown key %q: valid keys are version, deny, allow, safe_commands, sensitive_paths", key.Value)
		}
	}
}

// scalars returns the strings of a sequence of plain scalars.
func (p *fileParser) scalars(n *yaml.Node, what string) []*yaml.Node {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "%s must be a list", what)
		return nil
	}
	var out []*yaml.Node
	for _, item := range n.Content {
		if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
			p.fail(item, "each entry of %s must be a string", what)
			continue
		}
		out = append(out, item)
	}
	return out
}

// rules reads a list of rules: mappings with prefix or regex, and reason.
func (p *fileParser) rules(n *yaml.Node, allow bool) []FileRule {
	what := "deny"
	if allow {
		what = "allow"
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "%s must be a list of rules such as {prefix: git push} or {regex: '^make '}", what)
		return nil
	}
	var out []FileRule
	for _, item := range n.Content {
		if r, ok := p.rule(item, what); ok {
			out = append(out, r)
		}
	}
	return out
}

func (p *fileParser) rule(n *yaml.Node, what string) (FileRule, bool) {
	r := FileRule{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.fail(n, "each %s rule must be a mapping with prefix or regex", what)
		return r, false
	}
	ok := true
	var kinds int
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if val.Kind != yaml.ScalarNode || val.Tag != "!!str" && val.Tag != "!!int" && val.Tag != "!!float" && val.Tag != "!!bool" {
			p.fail(val, "%s must be a string", key.Value)
			ok = false
			continue
		}
		switch key.Value {
		case "prefix":
			kinds++
			if r.words = p.prefixWords(val); r.words == nil {
				ok = false
				continue
			}
			r.Prefix = strings.Join(r.words, " ")
		case "regex":
			kinds++
			re, err := regexp.Compile(val.Value)
			if err != nil {
				p.fail(val, "regex %q does not compile: %v", val.Value, err)
				ok = false
				continue
			}
			r.Regex, r.re = val.Value, re
		case "reason":
			if msg := checkReason(val.Value); msg != "" {
				p.fail(val, "%s", msg)
				ok = false
				continue
			}
			r.Reason = val.Value
		default:
			p.fail(key, "unknown key %q in a %s rule: valid keys are prefix, regex, reason", key.Value, what)
			ok = false
		}
	}
	if kinds != 1 {
		p.fail(n, "a %s rule needs exactly one of prefix and regex", what)
		ok = false
	}
	return r, ok
}

// maxPrefixWords bounds a prefix rule.
const maxPrefixWords = 16

// prefixWords splits a prefix rule into its words, or reports why it is
// not one: words are plain (no quotes, no shell syntax) and the first is
// a command name, not a path.
func (p *fileParser) prefixWords(n *yaml.Node) []string {
	words := strings.Fields(n.Value)
	switch {
	case len(words) == 0:
		p.fail(n, "prefix is empty")
		return nil
	case len(words) > maxPrefixWords:
		p.fail(n, "prefix has more than %d words", maxPrefixWords)
		return nil
	case strings.Contains(words[0], "/"):
		p.fail(n, "prefix %q must start with a command name, not a path", n.Value)
		return nil
	}
	for _, w := range words {
		if i := strings.IndexAny(w, "'\"\\$`;&|<>(){}[]*?~#="); i >= 0 || !isPlainASCII(w) {
			p.fail(n, "prefix word %q is not a plain word: write the words as the command has them, without quotes or shell syntax, or use a regex", w)
			return nil
		}
	}
	return words
}

// maxReason bounds a rule's reason.
const maxReason = 300

func checkReason(s string) string {
	switch {
	case len(s) > maxReason:
		return fmt.Sprintf("reason is longer than %d bytes", maxReason)
	case strings.ContainsAny(s, "\n\r"):
		return "reason must be one line"
	}
	for _, r := range s {
		if isInvisible(r) {
			return fmt.Sprintf("reason holds the control or invisible character %U", r)
		}
	}
	return ""
}

// safeCommandName is what a safe_commands entry must look like.
var safeCommandName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

func (p *fileParser) safeCommands(n *yaml.Node) []string {
	builtin := safeCommands()
	var out []string
	for _, item := range p.scalars(n, "safe_commands") {
		name := item.Value
		_, onList := builtin[name]
		switch why := runsOtherCode(name); {
		case !safeCommandName.MatchString(name):
			p.fail(item, "safe command %q must be a bare command name", name)
		case onList:
			p.fail(item, "%s is already on the safe list, with its own argument checks", name)
		case why != "":
			p.fail(item, "%s cannot be a safe command: %s; use an allow rule for the exact uses you want", name, why)
		default:
			out = append(out, name)
		}
	}
	return out
}

func (p *fileParser) sensitivePaths(n *yaml.Node) []string {
	var out []string
	for _, item := range p.scalars(n, "sensitive_paths") {
		v := item.Value
		if rest, ok := strings.CutPrefix(v, "~"); ok && (rest == "" || rest[0] == '/') {
			if p.home == "" {
				p.fail(item, "sensitive path %q starts with ~ but the home directory is not known", v)
				continue
			}
			v = p.home + rest
		}
		if !filepath.IsAbs(v) {
			p.fail(item, "sensitive path %q must be absolute or start with ~/", item.Value)
			continue
		}
		if v = filepath.Clean(v); v == "/" {
			p.fail(item, "sensitive path / would deny every command")
			continue
		}
		out = append(out, v)
	}
	return out
}

// rules returns the file's rules for the classifier: deny rules first.
func (f *File) rules() []*rule {
	src := filepath.Base(f.Path)
	var out []*rule
	for _, set := range []struct {
		allow bool
		rules []FileRule
	}{{false, f.Deny}, {true, f.Allow}} {
		for _, fr := range set.rules {
			r := &rule{allow: set.allow, re: fr.re, reason: fr.Reason, source: fmt.Sprintf("%s:%d", src, fr.Line)}
			if fr.re == nil {
				r.prefix = fr.words
			}
			out = append(out, r)
		}
	}
	return out
}
