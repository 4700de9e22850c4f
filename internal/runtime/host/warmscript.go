//go:build linux

package host

import (
	"fmt"
	"strings"
)

// Descriptors a warm shell has beyond recordFD. The payload closes both
// before the wrapper runs, so no command ever sees them.
const (
	scriptFD = 4 // the payload pipe: warmShell.cmd.ExtraFiles[1]
	stdinFD  = 5 // the request's stdin pipe: warmShell.cmd.ExtraFiles[2]
)

// payloadDone is the status the payload returns from `source` when every
// statement in it ran; see bootstrap.
const payloadDone = 42

// bootstrap is the whole -c script of a warm shell; it holds no request
// data. The shell blocks in `source`, reading the payload pipe (fd 4)
// until the parent closes it, without using CPU. `source` reads a pipe in
// 4 KiB chunks, where `read` would make one system call per byte. Bash
// parses the payload's single brace group completely before running any of
// it, so an empty payload (the daemon closed the pipe, or died) or a cut
// one runs nothing and returns 0, 1 or 2, never 42 (payloadDone). Only
// then is the wrapper, which the payload left in BASH_EXECUTION_STRING,
// evaluated at the top level, outside `source`, where `return`, FUNCNAME
// and BASH_SOURCE behave as in a fresh `bash -c`.
//
// Every word is a builtin or a keyword. warmable keeps environments that
// could define functions named like them (BASH_FUNC_*) or make bash run
// anything while it starts (BASH_ENV, SHELLOPTS) away from warm shells.
// /dev/fd is /proc/self/fd on Linux; without /proc the shell exits at
// once, and the pool discards it when a request comes.
const bootstrap = `builtin source /dev/fd/4; [[ $? == 42 ]] && builtin eval "$BASH_EXECUTION_STRING"`

// maxWarmScript bounds the wrapper a warm shell may take. A longer one runs
// in a fresh shell, as an argument, and an argument over 128 KiB
// (MAX_ARG_STRLEN) cannot be passed at all: staying well below that means
// a request fails for its length whether or not a warm shell was free.
const maxWarmScript = 64 << 10

// warmPayload returns what a warm shell sources for one request: a brace
// group that makes the shell what `bash -c wrapper` started in cwd would
// be, then returns payloadDone. In order:
//
//   - exec: fd 0 stays the /dev/null the shell was started with, or
//     becomes the stdin pipe when the request has stdin, exactly as on the
//     cold path; the payload and stdin pipes are closed. It is a plain
//     `exec`: under `builtin exec` the redirections would belong to
//     `builtin` and be undone after it. No function can be named exec yet.
//   - SECONDS=0: the shell may have waited a long time.
//   - `cd -P`: a fresh shell started in cwd takes getcwd's answer, the
//     physical path, as its first PWD, and the wrapper's own `cd` moves
//     that to OLDPWD. A failure is left for the wrapper's `cd` to report,
//     as on the cold path.
//   - BASH_EXECUTION_STRING: the wrapper, the -c string of a fresh shell.
func warmPayload(cwd, wrapper string, stdin bool) (string, error) {
	qcwd, err := quote(cwd)
	if err != nil {
		return "", fmt.Errorf("quote cwd: %w", err)
	}
	qwrapper, err := quote(wrapper)
	if err != nil {
		return "", fmt.Errorf("quote wrapper: %w", err)
	}
	fds := fmt.Sprintf("%d<&- %d<&-", scriptFD, stdinFD)
	if stdin {
		fds = fmt.Sprintf("0<&%d %s", stdinFD, fds)
	}
	parts := []string{
		"{ exec " + fds,
		"SECONDS=0",
		fmt.Sprintf("builtin cd -P -- %s 2>/dev/null", qcwd),
		"BASH_EXECUTION_STRING=" + qwrapper,
		fmt.Sprintf("builtin return %d; }", payloadDone),
	}
	return strings.Join(parts, "; ") + "\n", nil
}

// warmable reports whether a shell for env may be started before its
// request. The dynamic loader and bash act on some variables while the
// shell starts, before the bootstrap reads anything: LD_PRELOAD and the
// other LD_* load code, BASH_ENV is sourced, BASH_FUNC_* define functions
// (one named `builtin` would run in the bootstrap), SHELLOPTS and BASHOPTS
// set options (xtrace would trace the bootstrap, expanding PS4),
// POSIXLY_CORRECT and ENV change what is read; PWD and SECONDS take a
// meaning from where and when the shell started. An environment with any of
// them only ever gets a fresh shell, started when its request is. The
// daemon's session filter drops all of them anyway.
func warmable(env []string) bool {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "BASH") || strings.HasPrefix(name, "LD_") {
			return false
		}
		switch name {
		case "SHELLOPTS", "PS4", "POSIXLY_CORRECT", "ENV", "PWD", "SECONDS":
			return false
		}
	}
	return true
}
