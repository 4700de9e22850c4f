//go:build linux

package host

import (
	"slices"
	"sync"
)

// pool keeps shells started ahead of requests, so that a request does not
// wait for bash to start. It learns which environments to start them with
// from the requests themselves: it wants one idle shell for each
// environment among the last size warmable requests, so one busy session
// gets size shells and sessions that alternate share them. A request takes
// a shell only if it was started with exactly the request's Env; anything
// else gets a fresh shell. The methods are safe for concurrent use.
//
// One goroutine, refill, started with the pool and stopped by close, does
// every start and kill off the request path.
type pool struct {
	shell string
	size  int

	mu     sync.Mutex
	idle   []*warmShell // started, not yet taken; oldest first
	demand [][]string   // Env of the last size warmable requests, oldest first
	busy   bool         // refill is between plan and its last start
	closed bool
	stats  poolStats

	kick      chan struct{} // a send (never blocking) asks refill to reconcile
	stop      chan struct{} // closed by close
	done      chan struct{} // closed when refill returned
	closeOnce sync.Once
}

// poolStats counts what happened to requests and shells.
type poolStats struct {
	hits, misses int // warmable requests that got a warm shell, or did not
	dead         int // idle shells found dead when taken, and discarded
	startErrors  int // warm shells that failed to start
}

// newPool returns a pool of size shells and starts its refill goroutine.
func newPool(shell string, size int) *pool {
	p := &pool{
		shell: shell,
		size:  size,
		kick:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go p.refill()
	return p
}

// take records that a request with env arrived and returns an idle shell
// started with exactly env, or nil. A nil pool has none. fits reports
// whether the request may use a warm shell at all; its env counts towards
// the demand either way, so that the next request finds a shell.
//
// Starting a replacement takes a core for about as long as a short command
// runs, so it waits until the request is over (Run calls wake) while
// another shell for env is idle; when none is, a concurrent request would
// find none, and it starts at once.
func (p *pool) take(env []string, fits bool) *warmShell {
	if p == nil || !warmable(env) {
		return nil
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.noteLocked(env)
	p.mu.Unlock()
	if !fits {
		return nil
	}
	for {
		w, spare := p.pop(env)
		switch {
		case w == nil:
			p.locked(func() { p.stats.misses++ })
			p.wake()
			return nil
		case !w.exited():
			p.locked(func() { p.stats.hits++ })
			if !spare {
				p.wake()
			}
			return w
		}
		w.discard()
		p.locked(func() { p.stats.dead++ })
	}
}

// locked runs f with p.mu held.
func (p *pool) locked(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// noteLocked appends env to the demand, forgetting the oldest entry beyond
// size. The stored copy is never modified, so refill may use it unlocked.
func (p *pool) noteLocked(env []string) {
	if n := len(p.demand); n > 0 && slices.Equal(p.demand[n-1], env) {
		env = p.demand[n-1]
	} else {
		env = slices.Clone(env)
	}
	p.demand = append(p.demand, env)
	if len(p.demand) > p.size {
		p.demand = slices.Delete(p.demand, 0, 1)
	}
}

// pop removes and returns the oldest idle shell started with env, which is
// the likeliest to have finished starting, or nil; spare reports whether
// another one is left.
func (p *pool) pop(env []string) (w *warmShell, spare bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	same := func(w *warmShell) bool { return slices.Equal(w.env, env) }
	i := slices.IndexFunc(p.idle, same)
	if i < 0 {
		return nil, false
	}
	w = p.idle[i]
	p.idle = slices.Delete(p.idle, i, i+1)
	return w, slices.ContainsFunc(p.idle[i:], same)
}

// wake asks refill to reconcile, unless it has been asked already. A nil
// pool has nothing to do.
func (p *pool) wake() {
	if p == nil {
		return
	}
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// refill reconciles the idle shells with the demand each time it is woken,
// until close.
func (p *pool) refill() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		case <-p.kick:
			p.reconcile()
		}
	}
}

// reconcile discards the idle shells no recent request asked for and starts
// one for each demanded environment without one. A shell that fails to
// start is not retried until a request wakes refill again, so a broken
// setup costs an attempt or two per request, never a busy loop.
func (p *pool) reconcile() {
	missing, stale := p.plan()
	defer p.locked(func() { p.busy = false })
	for _, w := range stale {
		w.discard()
	}
	for _, env := range missing {
		select {
		case <-p.stop:
			return
		default:
		}
		w, err := startWarm(p.shell, env)
		if err != nil {
			// The same request gets a fresh shell, which fails or
			// succeeds on its own; there is no one else to tell.
			p.locked(func() { p.stats.startErrors++ })
			continue
		}
		if !p.add(w) {
			w.discard()
			return
		}
	}
}

// plan matches idle shells to the demand, one each. It removes the idle
// shells left unmatched and returns them as stale, with the demanded
// environments left without a shell as missing.
func (p *pool) plan() (missing [][]string, stale []*warmShell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil
	}
	p.busy = true
	matched := make([]bool, len(p.idle))
	for _, env := range p.demand {
		found := false
		for i, w := range p.idle {
			if !matched[i] && slices.Equal(w.env, env) {
				matched[i], found = true, true
				break
			}
		}
		if !found {
			missing = append(missing, env)
		}
	}
	kept := p.idle[:0:0]
	for i, w := range p.idle {
		if matched[i] {
			kept = append(kept, w)
		} else {
			stale = append(stale, w)
		}
	}
	p.idle = kept
	return missing, stale
}

// add makes w available to requests; it reports false, leaving w to the
// caller, once the pool is closed.
func (p *pool) add(w *warmShell) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.idle = append(p.idle, w)
	return true
}

// close stops refill and kills every idle shell; when it returns, no
// process the pool started is left. Requests that took a shell before are
// not affected. Later calls do nothing.
func (p *pool) close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		idle := p.idle
		p.idle = nil
		p.mu.Unlock()
		close(p.stop)
		<-p.done // refill discards whatever it was starting
		for _, w := range idle {
			w.discard()
		}
	})
}
