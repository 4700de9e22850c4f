package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// path is one way of running `true` that the report has rows for.
type path struct {
	name   string
	levels []int
	op     op
	sums   *[]summary
}

// run starts the daemons, checks the audited one's resources, then measures every path
// level by level (floor, ssh, sidecar, sidecar --no-audit at concurrency 1, then all at
// 8, ...), so that the rows compared in a ratio are taken close together in time, and
// writes the report to out. progress gets one line per step.
func run(ctx context.Context, cfg config, out, progress io.Writer) error {
	rep := report{date: time.Now().UTC(), machine: describeMachine(), commandLine: cfg.commandLine, cfg: cfg}
	dir, err := os.MkdirTemp("", "execbench-*")
	if err != nil {
		return fmt.Errorf("create temp dir: %w", err)
	}
	defer os.RemoveAll(dir)

	audited, err := startDaemon(ctx, cfg.sidecar, filepath.Join(dir, "audit"), false)
	if err != nil {
		return err
	}
	defer stopOnce(audited, cfg.stopTimeout)
	rep.res.PID = audited.pid()
	if rep.res.StartMem, err = readMemory(audited.pid()); err != nil {
		return err
	}
	auditedClient := newClient(audited.baseURL, audited.token, max(slices.Max(cfg.levels), cfg.leakConcurrency))
	if err := checkResources(ctx, cfg, audited, auditedClient, &rep.res, progress); err != nil {
		return err
	}

	paths := []path{
		{"floor", cfg.levels, floorOp(cfg.bash), &rep.floor},
		{"ssh", cfg.sshLevels, sshOp(cfg.ssh), &rep.ssh},
		{"sidecar", cfg.levels, auditedClient.execOp("true"), &rep.sidecar},
	}
	if cfg.ssh.port == 0 {
		paths[1].levels = nil
	}
	var plain *daemon
	if len(cfg.noAuditLevels) > 0 {
		if plain, err = startDaemon(ctx, cfg.sidecar, filepath.Join(dir, "no-audit"), true); err != nil {
			return fmt.Errorf("--no-audit: %w", err)
		}
		defer stopOnce(plain, cfg.stopTimeout)
		plainClient := newClient(plain.baseURL, plain.token, slices.Max(cfg.noAuditLevels))
		paths = append(paths, path{"no-audit", cfg.noAuditLevels, plainClient.execOp("true"), &rep.noAudit})
	}
	if err := measurePaths(ctx, cfg, paths, progress); err != nil {
		return err
	}

	if rep.res.EndMem, err = readMemory(audited.pid()); err != nil {
		return err
	}
	auditedClient.closeIdle()
	rep.stops = append(rep.stops, stopResult{"audit on", audited.stop(cfg.stopTimeout)})
	if plain != nil {
		rep.stops = append(rep.stops, stopResult{"--no-audit", plain.stop(cfg.stopTimeout)})
	}
	return rep.write(out)
}

// measurePaths measures, for each concurrency level in ascending order, every path that
// has that level. Each path is warmed up, then its requests are taken in cfg.rounds
// chunks that alternate between the paths, so that a burst of load from elsewhere on a
// shared machine lands on all of them rather than on whichever ran at that moment.
func measurePaths(ctx context.Context, cfg config, paths []path, progress io.Writer) error {
	var levels []int
	for _, p := range paths {
		levels = append(levels, p.levels...)
	}
	slices.Sort(levels)
	for _, c := range slices.Compact(levels) {
		var active []path
		for _, p := range paths {
			if slices.Contains(p.levels, c) {
				active = append(active, p)
			}
		}
		for _, p := range active {
			// At least one call per worker, so every keep-alive connection exists before timing.
			if _, err := runLoad(ctx, c, max(cfg.warmup, c), p.op); err != nil {
				return fmt.Errorf("%s: warm-up: %w", p.name, err)
			}
		}
		samples := make([]sample, len(active))
		for r := range cfg.rounds {
			n := cfg.requests / cfg.rounds
			if r < cfg.requests%cfg.rounds {
				n++
			}
			for i, p := range active {
				s, err := runLoad(ctx, c, n, p.op)
				if err != nil {
					return fmt.Errorf("%s: %w", p.name, err)
				}
				samples[i].latencies = append(samples[i].latencies, s.latencies...)
				samples[i].wall += s.wall
			}
		}
		for i, p := range active {
			s := summarize(c, samples[i])
			fmt.Fprintf(progress, "%-9s c=%-3d p50 %-10s p99 %-10s %.0f/s\n", p.name, c, fmtDur(s.P50), fmtDur(s.P99), s.Throughput)
			*p.sums = append(*p.sums, s)
		}
	}
	return nil
}

// stopOnce stops d on an early return; after a normal stop it finds d gone and does
// nothing.
func stopOnce(d *daemon, timeout time.Duration) {
	select {
	case <-d.done:
	default:
		_ = d.stop(timeout) // only reached on an error path, whose error is already returned
	}
}
