//go:build linux

package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// recordLimit bounds the bytes of one record read into memory. A larger
// record (huge exported variables) is ignored: the result then has no Cwd
// and no Exports, as if the trap had not run.
const recordLimit = 4 << 20

// newRecordFile returns an empty anonymous file for the EXIT trap to write
// its record to, as the shell's fd 3. A file rather than a pipe: bash
// writes the record in many small writes (one per exported variable), and
// each write to a pipe wakes its reader; the daemon reads the file once,
// when the output has ended or the shell has exited. A memfd where the
// kernel allows one, else an unlinked temporary file.
func newRecordFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("sidecar-record", unix.MFD_CLOEXEC)
	if err == nil {
		return os.NewFile(uintptr(fd), "sidecar-record"), nil
	}
	f, tmpErr := os.CreateTemp("", "sidecar-record-")
	if tmpErr != nil {
		return nil, fmt.Errorf("make record file: %w", errors.Join(err, tmpErr))
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("make record file: %w", err)
	}
	return f, nil
}

// readRecordFile returns what has been written to f, or false if that is
// more than recordLimit or cannot be read.
func readRecordFile(f *os.File) ([]byte, bool) {
	fi, err := f.Stat()
	if err != nil || fi.Size() > recordLimit {
		return nil, false
	}
	b := make([]byte, fi.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false
	}
	return b[:n], true
}

// record is what the wrapper's EXIT trap reported.
type record struct {
	// status is the shell's exit status as the trap saw it, which the
	// shell then exits with: the answer's exit code when the runtime
	// answers before the exit (answerEarly).
	status int
	// cwd is the physical directory the shell ended in, "" when unknown.
	cwd string
	// exports holds the exported variables; nil when `declare -px` could
	// not be parsed.
	exports map[string]string
}

// errNoRecord reports that b is not a complete record marked with nonce.
var errNoRecord = errors.New("no complete record")

// parseRecord parses the trap's output (layout in wrapperScript), or the
// short record of the plain wrapper (plainWrapperScript), which has only
// the status. It trusts only a record that starts and ends with nonce. A
// record whose variables do not parse still yields its cwd, with nil
// exports.
//
// memo, when not nil, remembers the last `declare -px` text it parsed:
// consecutive commands nearly always export the same variables.
func parseRecord(b []byte, nonce string, memo *exportsMemo) (record, error) {
	parts := bytes.Split(b, []byte{0})
	if n := len(parts); n != 5 && n != 3 || string(parts[0]) != nonce || string(parts[n-1]) != nonce {
		return record{}, errNoRecord
	}
	status, err := strconv.Atoi(string(parts[1]))
	if err != nil || status < 0 || status > 255 {
		return record{}, fmt.Errorf("%w: bad status %q", errNoRecord, parts[1])
	}
	rec := record{status: status}
	if len(parts) == 3 {
		return rec, nil
	}
	// pwd -P ends its line with one newline; a path may hold others.
	if cwd, ok := strings.CutSuffix(string(parts[2]), "\n"); ok && filepath.IsAbs(cwd) {
		rec.cwd = cwd
	}
	if exports, err := memo.parse(string(parts[3])); err == nil {
		rec.exports = exports
	}
	return rec, nil
}

// exportsMemo remembers the last parseExports answer. It is safe for
// concurrent use; a nil memo parses every time.
type exportsMemo struct {
	mu   sync.Mutex
	text string
	vars map[string]string
}

// parse is parseExports(text), from memory when text is the text parsed
// last. The map returned is the caller's own.
func (m *exportsMemo) parse(text string) (map[string]string, error) {
	if m == nil {
		return parseExports(text)
	}
	m.mu.Lock()
	if m.vars != nil && m.text == text {
		vars := maps.Clone(m.vars)
		m.mu.Unlock()
		return vars, nil
	}
	m.mu.Unlock()
	vars, err := parseExports(text)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.text, m.vars = text, maps.Clone(vars)
	m.mu.Unlock()
	return vars, nil
}

// parseExports reads the output of bash's `declare -px`: one statement per
// variable, `declare -x NAME="value"` or `declare -x NAME=$'…'`. It parses
// the text as shell and takes each value with expand.Literal over quoted
// parts only, with an empty configuration, so nothing is ever run, looked up or
// globbed. Variables without a value, arrays and namerefs are skipped: none
// of them reaches a child's environment as a plain NAME=value.
func parseExports(text string) (map[string]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return nil, fmt.Errorf("parse declare -px: %w", err)
	}
	vars := make(map[string]string)
	for _, st := range f.Stmts {
		dc, ok := st.Cmd.(*syntax.DeclClause)
		if !ok || dc.Variant.Value != "declare" || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
			return nil, fmt.Errorf("parse declare -px: unexpected statement at %s", st.Pos())
		}
		if err := addDecl(vars, dc); err != nil {
			return nil, err
		}
	}
	return vars, nil
}

// addDecl adds the variable one `declare -<flags> NAME=value` declares.
func addDecl(vars map[string]string, dc *syntax.DeclClause) error {
	flags := ""
	for _, a := range dc.Args {
		if a.Name == nil {
			// A flag word such as -x or -rx.
			f, ok := flagWord(a.Value)
			if !ok {
				return fmt.Errorf("parse declare -px: unexpected word at %s", a.Pos())
			}
			flags += f
			continue
		}
		if !strings.Contains(flags, "x") {
			return fmt.Errorf("parse declare -px: %s is not exported", a.Name.Value)
		}
		if a.Naked || a.Append || a.Index != nil || a.Array != nil || strings.ContainsAny(flags, "aAn") {
			continue
		}
		v, ok := quotedLiteral(a.Value)
		if !ok {
			return fmt.Errorf("parse declare -px: value of %s is not a quoted literal", a.Name.Value)
		}
		vars[a.Name.Value] = v
	}
	return nil
}

// flagWord returns the letters of a bare option word such as -x or -rx;
// "--" has none.
func flagWord(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) != 1 {
		return "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(lit.Value, "-") {
		return "", false
	}
	if lit.Value == "--" {
		return "", true
	}
	letters := lit.Value[1:]
	if letters == "" || strings.Trim(letters, "abcdefghijklmnopqrstuvwxyzAIL") != "" {
		return "", false
	}
	return letters, true
}

// quotedLiteral returns the value of w if it is made only of quotes with no
// expansion inside, which is how bash prints every value. Bare words are
// refused: their tildes, braces and globs would need expanding.
func quotedLiteral(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	// An empty Config has no environment, no command substitution and no
	// file system access; on quoted literals it only removes the quoting.
	// It is made fresh each time: expand fills in the Config it is given,
	// and with nil it writes to a package-level one, a data race.
	s, err := expand.Literal(&expand.Config{}, w)
	if err != nil {
		return "", false
	}
	return s, true
}
