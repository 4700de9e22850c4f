package policy

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// parseBash parses src as bash, the dialect the daemon runs, with a parser
// of its own.
func parseBash(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// parseBashRecovering parses as much as it can of src that has a syntax
// error, for the hard-deny search only: nothing it returns is ever trusted
// to be safe.
func parseBashRecovering(src string) *syntax.File {
	f, _ := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.RecoverErrors(16)).Parse(strings.NewReader(src), "")
	return f // the partial tree is what we want; the error is already known
}

// parsers hands out bash parsers for reuse. A syntax.Parser carries two
// KiB of read and literal buffers, as much garbage as the whole tree of a
// short command; syntax.Parser.Parse resets all its state, so one that is
// done with a command parses the next one exactly as a new one would (it
// keeps a reference to the last tree it made, which nothing reads). It is
// safe for concurrent use: each parser serves one caller at a time.
type parsers struct {
	pool sync.Pool
}

func newParsers() *parsers {
	ps := &parsers{}
	ps.pool.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }
	return ps
}

// parse is parseBash with a parser from the pool.
func (ps *parsers) parse(src string) (*syntax.File, error) {
	p := ps.pool.Get().(*syntax.Parser)
	defer ps.pool.Put(p)
	return p.Parse(strings.NewReader(src), "")
}
