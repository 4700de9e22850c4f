package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is everything one run needs, parsed from the command line.
type config struct {
	sidecar         string        // path of the sidecar binary under test
	bash            string        // the shell the floor starts
	requests        int           // measured requests per level
	warmup          int           // unmeasured requests before each level
	rounds          int           // chunks each level's requests are split into, alternating between paths
	levels          []int         // concurrency levels for the floor and the daemon
	sshLevels       []int         // concurrency levels for ssh
	noAuditLevels   []int         // levels repeated on a daemon started with --no-audit
	leakRequests    int           // requests in the resource check
	leakConcurrency int           // concurrency of the resource check
	settle          time.Duration // how long counts may take to return to baseline
	ssh             sshTarget     // zero port: no ssh baseline
	commandLine     string        // os.Args, shell-quoted, for the report
	stopTimeout     time.Duration // SIGTERM to SIGKILL
}

// parseFlags parses args (args[0] is the program name) into a config. Usage and flag
// errors go to usage; -h returns flag.ErrHelp.
func parseFlags(args []string, usage io.Writer) (config, error) {
	cfg := config{
		levels:        []int{1, 8, 64},
		sshLevels:     []int{1, 8},
		noAuditLevels: []int{1, 8},
		stopTimeout:   10 * time.Second,
		commandLine:   shellQuote(args),
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&cfg.sidecar, "sidecar", "", "path of the sidecar binary (required)")
	fs.StringVar(&cfg.bash, "bash", "/bin/bash", "shell the floor starts, as the daemon does")
	fs.IntVar(&cfg.requests, "n", 2000, "measured requests per level")
	fs.IntVar(&cfg.warmup, "warmup", 200, "unmeasured requests before each level")
	fs.IntVar(&cfg.rounds, "rounds", 4, "alternate the paths this many times within each level")
	fs.Var((*intList)(&cfg.levels), "c", "concurrency levels, comma-separated")
	fs.Var((*intList)(&cfg.sshLevels), "ssh-c", "concurrency levels for ssh")
	fs.Var((*intList)(&cfg.noAuditLevels), "no-audit-c", "levels repeated with --no-audit (empty: none)")
	fs.IntVar(&cfg.leakRequests, "leak-n", 10000, "requests in the resource check")
	fs.IntVar(&cfg.leakConcurrency, "leak-c", 8, "concurrency of the resource check")
	fs.DurationVar(&cfg.settle, "settle", 5*time.Second, "time allowed for counts to return to baseline")
	fs.IntVar(&cfg.ssh.port, "ssh-port", 0, "port of the baseline sshd (0: skip the ssh baseline)")
	fs.StringVar(&cfg.ssh.user, "ssh-user", "sidecarbench", "user on the baseline sshd")
	fs.StringVar(&cfg.ssh.key, "ssh-key", "", "client private key for the baseline sshd")
	fs.StringVar(&cfg.ssh.control, "ssh-control", "", "ControlPath of the master connection")
	if err := fs.Parse(args[1:]); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	return cfg, cfg.validate()
}

func (c config) validate() error {
	switch {
	case c.sidecar == "":
		return errors.New("-sidecar is required")
	case c.requests < 1 || c.warmup < 0 || c.leakRequests < 0:
		return errors.New("-n must be positive; -warmup and -leak-n not negative")
	case len(c.levels) == 0:
		return errors.New("-c needs at least one level")
	case c.rounds < 1 || c.rounds > c.requests:
		return errors.New("-rounds must be between 1 and -n")
	case c.requests/c.rounds < slices.Max(slices.Concat(c.levels, c.sshLevels, c.noAuditLevels)):
		// Fewer requests per round than workers would run that round below its level.
		return errors.New("-n / -rounds must be at least the highest concurrency level")
	case c.leakConcurrency < 1:
		return errors.New("-leak-c must be positive")
	case c.ssh.port != 0 && (c.ssh.key == "" || c.ssh.control == ""):
		return errors.New("-ssh-port needs -ssh-key and -ssh-control")
	}
	return nil
}

// intList is a flag.Value for "1,8,64".
type intList []int

func (l *intList) String() string {
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

func (l *intList) Set(s string) error {
	*l = nil
	if s == "" {
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || v < 1 {
			return fmt.Errorf("level %q: want a positive integer", part)
		}
		*l = append(*l, v)
	}
	return nil
}

// shellQuote renders args so that a shell would split them back the same way.
func shellQuote(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
			quoted[i] = a
			continue
		}
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}
