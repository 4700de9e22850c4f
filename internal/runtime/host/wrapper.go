//go:build linux

package host

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// recordFD is the descriptor, in the shell, of the file the EXIT trap
// writes its record to (newRecordFile). It is cmd.ExtraFiles[0].
const recordFD = 3

// newNonce returns a fresh random marker for one request's record.
func newNonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make record nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// wrapperScript returns the script bash runs for one request.
//
// The EXIT trap writes, to fd 3 and never to the merged output, the record
//
//	nonce NUL status NUL `pwd -P` NUL `declare -px` NUL nonce
//
// (see parseRecord) and exits with the saved status, so `exit 3` still
// reports its directory and status 3. The nonce at both ends lets the
// reader trust only a complete record written by this request's trap; it is
// not a secret from the command, which can read its own shell's state and
// already has the user's full authority. Every shell word in the trap but
// one (`exec`, below) is a builtin, so functions the command defines cannot
// replace them.
//
// The command runs under `3>&-`: programs it starts do not inherit the
// record file, so they cannot write to it, and bash restores fd 3 before
// the EXIT trap runs, even after `exit` inside the eval. A signal (timeout,
// cancel) can end the eval with fd 3 still closed: the record is then lost,
// as it would be anyway, and `2>/dev/null` keeps bash's complaint about
// fd 3 out of the command's output.
//
// Having written the record, the trap closes the output and the record
// before it exits, so the daemon can answer as soon as the output ends,
// from the record, instead of after the shell's exit (about 0.1 ms of
// tearing a process down). `exec` cannot be `builtin exec`, whose
// redirections would be undone; a function the command named exec is
// removed first. If the command defeats that (a readonly function,
// `enable -n exec`), the output ends at the exit instead.
func wrapperScript(nonce, cwd, command string) (string, error) {
	qcwd, qcmd, err := quoteCwdAndCommand(cwd, command)
	if err != nil {
		return "", err
	}
	// One line, so that bash numbers the lines of the command's own error
	// messages from 1 ("bash: line 2: foo: command not found").
	parts := []string{
		"__sidecar_exit() { builtin local __sidecar_status=$?",
		fmt.Sprintf(`{ builtin printf '%%s\0%%s\0' %s "$__sidecar_status"`, nonce),
		"builtin pwd -P",
		`builtin printf '\0'`,
		"builtin declare -px",
		fmt.Sprintf(`builtin printf '\0%%s' %s`, nonce),
		fmt.Sprintf("builtin unset -f exec; } 2>/dev/null >&%d", recordFD),
		fmt.Sprintf("exec 1>&- 2>&- %d>&-", recordFD),
		`builtin exit "$__sidecar_status"; }`,
		"builtin trap __sidecar_exit EXIT",
		fmt.Sprintf("builtin cd -- %s || builtin exit %d", qcwd, runtime.ExitCwdUnusable),
		fmt.Sprintf("builtin eval %s %d>&-", qcmd, recordFD),
	}
	return strings.Join(parts, "; ") + "\n", nil
}

// plainWrapperScript returns the script bash runs for a stateless command
// (see stateless): `cd` and `eval` as in wrapperScript, without the EXIT
// trap, since the directory and variables after it are known already.
// What the trap did for the answer's speed stays: after the command the
// wrapper writes the short record
//
//	nonce NUL status NUL nonce
//
// to fd 3, closes the output and exits with the command's status, so the
// daemon answers as soon as the output ends. The command can end the shell
// only by a signal (exit and exec are builtins, which a stateless command
// does not name); the answer then comes at the exit, as for any shell that
// wrote no record. `exec` is a plain word here, as in the trap: a stateless
// command defines no function, and its environment none (warmable).
func plainWrapperScript(nonce, cwd, command string) (string, error) {
	qcwd, qcmd, err := quoteCwdAndCommand(cwd, command)
	if err != nil {
		return "", err
	}
	parts := []string{
		fmt.Sprintf("builtin cd -- %s || builtin exit %d", qcwd, runtime.ExitCwdUnusable),
		fmt.Sprintf("builtin eval %s %d>&-", qcmd, recordFD),
		"__sidecar_status=$?",
		fmt.Sprintf(`builtin printf '%%s\0%%s\0%%s' %s "$__sidecar_status" %s >&%d`, nonce, nonce, recordFD),
		fmt.Sprintf("exec 1>&- 2>&- %d>&-", recordFD),
		`builtin exit "$__sidecar_status"`,
	}
	return strings.Join(parts, "; ") + "\n", nil
}

// quoteCwdAndCommand quotes what both wrappers put in the script.
func quoteCwdAndCommand(cwd, command string) (qcwd, qcmd string, err error) {
	if qcwd, err = quote(cwd); err != nil {
		return "", "", fmt.Errorf("quote cwd: %w", err)
	}
	if qcmd, err = quote(command); err != nil {
		return "", "", fmt.Errorf("quote command: %w", err)
	}
	return qcwd, qcmd, nil
}

// quote returns s as one single-quoted bash word that expands to exactly s.
//
// It deliberately does not use syntax.Quote: for runes it deems
// non-printable (U+200B, say) that emits $'\u200b', which bash decodes
// according to the command's locale; under LANG=C it runs the six bytes
// `\u200B` instead. Plain single quotes carry every byte but NUL through
// unchanged in every locale, so the string that ran is the one approved.
func quote(s string) (string, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return "", fmt.Errorf("%w: NUL byte at offset %d", ErrInvalidRequest, i)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}
