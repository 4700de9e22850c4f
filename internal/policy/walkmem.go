package policy

import "sync"

// walkMemory hands out the calls, words, redirections and assignments of
// the programs that one Classify call walks, and the walker's stack. A
// Classifier keeps a pool of them, for all of these are garbage as soon
// as the command's Verdict is made (a Verdict holds strings, never a call
// or a word): the next command can have the same memory rather than as
// much again from the heap. What it hands out is zero or written in full,
// so nothing of one command is ever seen by the next; until overwritten,
// a reused chunk only keeps the previous command's tree from the
// collector.
//
// It is used by one goroutine at a time, and walks never overlap: a nested
// program string is walked after the walk that found it has ended.
type walkMemory struct {
	calls   chunks[call]
	words   chunks[word]
	redirs  chunks[redir]
	assigns chunks[assign]
	stack   []frame
	// res resolves the paths of one command; its maps are emptied, not
	// dropped, between commands, so they do not grow again each time.
	res resolver
}

// Chunk sizes start small, for the one-command case, and double up to the
// largest a pooled walkMemory keeps; a command with more is served in
// further chunks of that size.
const (
	firstChunk     = 4
	maxCallChunk   = MaxSimpleCommands
	maxWordChunk   = 1024
	maxRedirChunk  = 256
	maxAssignChunk = 256
	stackChunk     = 32
	maxPooledStack = 256
	// maxPooledPaths bounds the resolver entries whose room a pooled
	// walkMemory keeps; a command that named more gets fresh maps next.
	maxPooledPaths = 256
)

func newWalkMemory() *walkMemory {
	return &walkMemory{
		calls:   chunks[call]{most: maxCallChunk},
		words:   chunks[word]{most: maxWordChunk},
		redirs:  chunks[redir]{most: maxRedirChunk},
		assigns: chunks[assign]{most: maxAssignChunk},
		stack:   make([]frame, 0, stackChunk),
	}
}

// newCall returns a pointer to a copy of c.
func (m *walkMemory) newCall(c call) *call { return m.calls.put(c) }

// release readies the memory for the next command.
func (m *walkMemory) release() {
	m.calls.release()
	m.words.release()
	m.redirs.release()
	m.assigns.release()
	// A frame is written in full when it is pushed, before it is read.
	if cap(m.stack) > maxPooledStack {
		m.stack = make([]frame, 0, stackChunk)
	}
	m.stack = m.stack[:0]
	m.res.reset()
}

// resolver returns the memory's resolver, empty, reading fsys.
func (m *walkMemory) resolver(fsys FileSystem) *resolver {
	m.res.fs = fsys
	if m.res.known == nil {
		m.res.known = make(map[string]string)
	}
	return &m.res
}

// chunks hands out slices of T from chunks that are never grown, so what
// was handed out stays where it is.
type chunks[T any] struct {
	cur  []T
	out  int // handed out since the last release, from every chunk
	most int // the largest chunk
}

// take returns n zero values, with no room to grow into the next ones.
func (c *chunks[T]) take(n int) []T {
	c.room(n)
	start := len(c.cur)
	c.cur = c.cur[:start+n]
	c.out += n
	s := c.cur[start : start+n : start+n]
	clear(s) // what an earlier command left
	return s
}

// put returns a pointer to a copy of v.
func (c *chunks[T]) put(v T) *T {
	c.room(1)
	c.cur = append(c.cur, v)
	c.out++
	return &c.cur[len(c.cur)-1]
}

// room makes sure the current chunk has room for n more.
func (c *chunks[T]) room(n int) {
	if cap(c.cur)-len(c.cur) < n {
		// A full chunk stays with what was handed out of it.
		c.cur = make([]T, 0, max(n, min(max(2*cap(c.cur), firstChunk), c.most)))
	}
}

// release readies the chunk for the next command; where one chunk did not
// hold all that was handed out, the next is one of the size it took (as
// far as most).
func (c *chunks[T]) release() {
	if c.out > len(c.cur) {
		c.cur = make([]T, 0, min(c.out, c.most))
	}
	c.cur = c.cur[:0]
	c.out = 0
}

// walkMemories is a Classifier's pool of walkMemory; it is safe for
// concurrent use.
type walkMemories struct {
	pool sync.Pool
}

func (p *walkMemories) get() *walkMemory {
	if m, ok := p.pool.Get().(*walkMemory); ok {
		return m
	}
	return newWalkMemory()
}

// put releases m and keeps it for another call; nothing handed out of m
// may be used afterwards.
func (p *walkMemories) put(m *walkMemory) {
	m.release()
	p.pool.Put(m)
}
