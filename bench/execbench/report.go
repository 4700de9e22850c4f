package main

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// report is everything one run found, written as markdown.
type report struct {
	date        time.Time
	machine     machine
	commandLine string
	cfg         config
	floor       []summary
	ssh         []summary
	sidecar     []summary // audit log on
	noAudit     []summary
	res         resourceCheck
	stops       []stopResult
}

// stopResult is how one daemon ended on SIGTERM; err is nil for exit status 0.
type stopResult struct {
	daemon string
	err    error
}

func (r report) write(out io.Writer) error {
	w := bufio.NewWriter(out)
	r.writeHeader(w)
	r.writeLatency(w)
	r.writeRatios(w)
	r.writeAuditCost(w)
	r.writeResources(w)
	r.writeStops(w)
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func (r report) writeHeader(w io.Writer) {
	m := r.machine
	kvm := "no /dev/kvm"
	if m.KVM {
		kvm = "/dev/kvm present"
	}
	virt := "bare metal or undetected"
	if m.Hypervisor {
		virt = "itself a VM (hypervisor CPU flag)"
	}
	fmt.Fprintf(w, "## Exec round trip, %s\n\n", r.date.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "- Machine: %d CPUs (nproc), %s; Linux %s; %s; %s; %s\n", m.CPUs, orUnknown(m.CPUModel), m.Kernel, kvm, virt, m.Go)
	fmt.Fprintf(w, "- Command: `%s`\n", r.commandLine)
	if len(r.ssh) == 0 {
		fmt.Fprintln(w, "- ssh baseline: not measured (no -ssh-port); run bench/run.sh for it.")
	}
	fmt.Fprintf(w, "- Method: closed loop (each of the `concurrency` workers sends its next request when "+
		"the last one returns); per level, every path gets %d warm-up requests, then %d timed requests "+
		"taken in %d rounds that alternate between the paths; latency is the client's wall time per request.\n\n",
		r.cfg.warmup, r.cfg.requests, r.cfg.rounds)
}

func (r report) writeLatency(w io.Writer) {
	fmt.Fprintln(w, "| path | concurrency | requests | p50 | p99 | max | throughput |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	rows := []struct {
		name string
		sums []summary
	}{
		{"floor: `bash --noprofile --norc -c true` from Go", r.floor},
		{"ssh: `ssh -T host true`, ControlMaster up", r.ssh},
		{"sidecar: `POST /v1/exec` `true`, audit on", r.sidecar},
		{"sidecar: `POST /v1/exec` `true`, `--no-audit`", r.noAudit},
	}
	for _, row := range rows {
		for _, s := range row.sums {
			fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %.0f/s |\n",
				row.name, s.Concurrency, s.Requests, fmtDur(s.P50), fmtDur(s.P99), fmtDur(s.Max), s.Throughput)
		}
	}
	fmt.Fprintln(w)
}

func (r report) writeRatios(w io.Writer) {
	fmt.Fprintln(w, "| concurrency | sidecar p50 | overhead over floor, p50 | overhead over floor, p99 | sidecar p50 / ssh p50 | sidecar / ssh throughput |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|")
	for _, s := range r.sidecar {
		floor, hasFloor := byLevel(r.floor, s.Concurrency)
		ssh, hasSSH := byLevel(r.ssh, s.Concurrency)
		overP50, overP99, ratio, tput := "–", "–", "–", "–"
		if hasFloor {
			overP50, overP99 = fmtSigned(s.P50-floor.P50), fmtSigned(s.P99-floor.P99)
		}
		if hasSSH {
			ratio = fmt.Sprintf("%.2f×", float64(s.P50)/float64(ssh.P50))
			tput = fmt.Sprintf("%.2f×", s.Throughput/ssh.Throughput)
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s |\n", s.Concurrency, fmtDur(s.P50), overP50, overP99, ratio, tput)
	}
	fmt.Fprintln(w, "\nA ratio below 1× means Sidecar answers faster than ssh; – means that level was not measured for that baseline.")
	fmt.Fprintln(w)
}

func (r report) writeAuditCost(w io.Writer) {
	if len(r.noAudit) == 0 {
		return
	}
	fmt.Fprintln(w, "| concurrency | p50 audit on | p50 `--no-audit` | audit cost, p50 | p99 audit on | p99 `--no-audit` |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|")
	for _, off := range r.noAudit {
		on, ok := byLevel(r.sidecar, off.Concurrency)
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s |\n", off.Concurrency,
			fmtDur(on.P50), fmtDur(off.P50), fmtSigned(on.P50-off.P50), fmtDur(on.P99), fmtDur(off.P99))
	}
	fmt.Fprintln(w, "\nThe audit log writes two records per command and fsyncs the first (the decision, before the command starts).")
	fmt.Fprintln(w)
}

func (r report) writeResources(w io.Writer) {
	res := r.res
	if res.Requests == 0 {
		fmt.Fprintln(w, "Resource check skipped (-leak-n 0).")
		return
	}
	fmt.Fprintf(w, "Resources of the daemon (pid %d) before and after %d requests at concurrency %d, "+
		"after the client closed its idle connections (allowed to settle for up to %v):\n\n",
		res.PID, res.Requests, r.cfg.leakConcurrency, r.cfg.settle)
	fmt.Fprintln(w, "| | before | after | back to baseline |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	for _, row := range []struct {
		name          string
		before, after int
	}{
		{"goroutines (`/v1/status`)", res.Before.Goroutines, res.After.Goroutines},
		{"open fds (`/proc/PID/fd`)", res.Before.FDs, res.After.FDs},
		{"child processes (ppid = daemon)", res.Before.Children, res.After.Children},
	} {
		fmt.Fprintf(w, "| %s | %d | %d | %s |\n", row.name, row.before, row.after, yesNo(row.before == row.after))
	}
	fmt.Fprintf(w, "| VmRSS, idle | %s (after start) | %s (after the run) | – |\n", fmtKiB(res.StartMem.RSS), fmtKiB(res.LoadMem.RSS))
	fmt.Fprintf(w, "| VmRSS after all levels; peak VmHWM | | %s; peak %s | – |\n\n", fmtKiB(res.EndMem.RSS), fmtKiB(res.EndMem.Peak))
	if !res.Returned() {
		fmt.Fprintln(w, "**Counts did not return to baseline.**")
	}
}

func (r report) writeStops(w io.Writer) {
	for _, s := range r.stops {
		if s.err != nil {
			fmt.Fprintf(w, "- Daemon (%s) on SIGTERM: **not clean**: %v\n", s.daemon, s.err)
			continue
		}
		fmt.Fprintf(w, "- Daemon (%s) on SIGTERM: clean, exit status 0.\n", s.daemon)
	}
}

func byLevel(sums []summary, concurrency int) (summary, bool) {
	for _, s := range sums {
		if s.Concurrency == concurrency {
			return s, true
		}
	}
	return summary{}, false
}

// fmtDur prints a latency with a precision that suits its size.
func fmtDur(d time.Duration) string {
	switch us := float64(d) / float64(time.Microsecond); {
	case us < 0:
		return "-" + fmtDur(-d)
	case us < 1000:
		return fmt.Sprintf("%.0f µs", us)
	case us < 10000:
		return fmt.Sprintf("%.2f ms", us/1000)
	default:
		return fmt.Sprintf("%.1f ms", us/1000)
	}
}

func fmtSigned(d time.Duration) string {
	if d >= 0 {
		return "+" + fmtDur(d)
	}
	return fmtDur(d)
}

func fmtKiB(kib int) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func orUnknown(s string) string {
	if s == "" {
		return "CPU model unknown"
	}
	return s
}
