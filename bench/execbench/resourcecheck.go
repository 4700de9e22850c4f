package main

import (
	"context"
	"fmt"
	"io"
)

// resourceCheck is what the daemon held before and after a long run.
type resourceCheck struct {
	PID      int
	Requests int
	Before   counts
	After    counts
	StartMem memory // idle, right after it started listening
	LoadMem  memory // idle again, after the long run settled
	EndMem   memory // after every level; Peak is the run's high-water mark
}

// Returned reports whether every count came back to its baseline.
func (r resourceCheck) Returned() bool { return r.Before == r.After }

// checkResources warms the daemon up, takes a baseline, runs cfg.leakRequests
// requests, closes the client's idle connections and waits for the counts to return.
func checkResources(ctx context.Context, cfg config, d *daemon, c *client, res *resourceCheck, progress io.Writer) error {
	if cfg.leakRequests == 0 {
		return nil
	}
	take := func() (counts, error) { return takeCounts(ctx, c, d.pid()) }
	exec := c.execOp("true")
	if _, err := runLoad(ctx, cfg.leakConcurrency, max(cfg.warmup, cfg.leakConcurrency), exec); err != nil {
		return fmt.Errorf("resource check warm-up: %w", err)
	}
	c.closeIdle()
	var err error
	if res.Before, err = steadyCounts(ctx, take, cfg.settle); err != nil {
		return fmt.Errorf("resource baseline: %w", err)
	}
	if _, err := runLoad(ctx, cfg.leakConcurrency, cfg.leakRequests, exec); err != nil {
		return fmt.Errorf("resource check run: %w", err)
	}
	res.Requests = cfg.leakRequests
	c.closeIdle()
	if res.After, err = settleCounts(ctx, take, res.Before, cfg.settle); err != nil {
		return fmt.Errorf("resource check after run: %w", err)
	}
	if res.LoadMem, err = readMemory(d.pid()); err != nil {
		return err
	}
	fmt.Fprintf(progress, "resources %d requests: before %+v after %+v\n", res.Requests, res.Before, res.After)
	return nil
}
