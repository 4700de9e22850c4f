package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// counts are the daemon's resources that must return to where they were after load.
type counts struct {
	Goroutines int
	FDs        int
	Children   int
}

// memory is the daemon's resident set, in KiB, from /proc/PID/status.
type memory struct {
	RSS  int // VmRSS: now
	Peak int // VmHWM: the high-water mark since start
}

// takeCounts reads the daemon's goroutines from GET /v1/status and its open files and
// child processes from /proc.
func takeCounts(ctx context.Context, c *client, pid int) (counts, error) {
	// /proc first: the status request's own connection is then not among the fds.
	fds, err := countFDs(pid)
	if err != nil {
		return counts{}, err
	}
	children, err := countChildren(pid)
	if err != nil {
		return counts{}, err
	}
	st, err := c.daemonStatus(ctx)
	if err != nil {
		return counts{}, err
	}
	if st.PID != pid {
		return counts{}, fmt.Errorf("GET /v1/status reports pid %d, want %d", st.PID, pid)
	}
	return counts{Goroutines: st.Goroutines, FDs: fds, Children: children}, nil
}

// settleCounts polls until take returns want or wait has passed, and returns the last
// reading. Idle connections and exited children take a moment to be reaped.
func settleCounts(ctx context.Context, take func() (counts, error), want counts, wait time.Duration) (counts, error) {
	deadline := time.Now().Add(wait)
	for {
		got, err := take()
		if err != nil || got == want || time.Now().After(deadline) {
			return got, err
		}
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// steadyCounts polls until two readings in a row agree (or wait has passed), so that a
// baseline is not taken while the daemon is still closing the warm-up's connections.
func steadyCounts(ctx context.Context, take func() (counts, error), wait time.Duration) (counts, error) {
	prev, err := take()
	if err != nil {
		return counts{}, err
	}
	deadline := time.Now().Add(wait)
	for {
		select {
		case <-ctx.Done():
			return prev, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		got, err := take()
		if err != nil || got == prev || time.Now().After(deadline) {
			return got, err
		}
		prev = got
	}
}

func countFDs(pid int) (int, error) {
	entries, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		return 0, fmt.Errorf("count open files: %w", err)
	}
	return len(entries), nil
}

// countChildren counts the processes, zombies included, whose parent is pid.
func countChildren(pid int) (int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, fmt.Errorf("count children: %w", err)
	}
	n := 0
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the process exited between the glob and the read
		}
		ppid, err := parseStatPPID(string(b))
		if err != nil {
			return 0, fmt.Errorf("count children: %s: %w", path, err)
		}
		if ppid == pid {
			n++
		}
	}
	return n, nil
}

var errBadStat = errors.New("malformed /proc/PID/stat")

// parseStatPPID returns the parent pid from the text of /proc/PID/stat. The command
// name in parentheses may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
func parseStatPPID(stat string) (int, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errBadStat
	}
	fields := strings.Fields(stat[i+1:]) // state, ppid, ...
	if len(fields) < 2 {
		return 0, errBadStat
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return 0, fmt.Errorf("%w: ppid %q", errBadStat, fields[1])
	}
	return ppid, nil
}

// readMemory reads VmRSS and VmHWM of pid.
func readMemory(pid int) (memory, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return memory{}, fmt.Errorf("read memory: %w", err)
	}
	var m memory
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int
		switch key {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.Peak
		default:
			continue
		}
		kib, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		if err != nil {
			return memory{}, fmt.Errorf("read memory: %s: %q", key, value)
		}
		*dst = kib
	}
	if m.RSS == 0 {
		return memory{}, fmt.Errorf("read memory: no VmRSS for pid %d", pid)
	}
	return m, nil
}
