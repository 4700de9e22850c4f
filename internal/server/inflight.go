package server

import (
	"context"
	"sync"
)

// inflight maps request ids to the cancel functions of running requests.
type inflight struct {
	mu   sync.Mutex
	reqs map[string]context.CancelCauseFunc
}

func newInflight() *inflight {
	return &inflight{reqs: make(map[string]context.CancelCauseFunc)}
}

// add registers id; it reports false when id is already running.
func (f *inflight) add(id string, cancel context.CancelCauseFunc) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.reqs[id]; dup {
		return false
	}
	f.reqs[id] = cancel
	return true
}

func (f *inflight) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.reqs, id)
}

// cancel cancels id with cause; it reports whether id was running.
func (f *inflight) cancel(id string, cause error) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.reqs[id]
	if ok {
		c(cause)
	}
	return ok
}

func (f *inflight) cancelAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.reqs {
		c(errShutdown)
	}
}

func (f *inflight) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}
