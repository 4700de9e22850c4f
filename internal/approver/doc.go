// Package approver lets a person answer Sidecar's approval prompts from
// another terminal: `sidecar approve` attaches to a running daemon over a
// Unix socket in the state directory and sees every pending request, with
// its age, however many wait at once.
//
// The socket is mode 0600 inside the 0700 state directory, and the daemon
// also checks the peer's user id (SO_PEERCRED on Linux, LOCAL_PEERCRED on
// macOS) on every connection: only the user the daemon runs as may attach.
// On systems where the peer cannot be checked, every connection is
// refused.
//
// The protocol is JSON lines, one Message per line, described in
// protocol.go. A Server is safe for concurrent use.
package approver
