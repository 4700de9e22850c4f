// Package host is the "host" runtime: it runs an approved command as the
// current user, in a fresh bash with an environment built from scratch, in
// its own process group.
//
// One Run goes through these steps, in order:
//
//  1. Build the wrapper script (wrapper.go): an EXIT trap that reports the
//     final status, directory and exported variables on a private pipe
//     (fd 3) marked with a fresh random nonce; `cd` to the requested
//     directory; `eval` the command exactly as it was approved.
//  2. Start `bash --noprofile --norc -c <wrapper>` with Env exactly as
//     requested, stdout and stderr on one pipe, and Setpgid.
//  3. Wait for the shell (group leader) to exit without reaping it. On
//     timeout or cancellation first send SIGTERM to the group and give it
//     Options.KillGrace to exit.
//  4. After a timeout or cancellation, SIGKILL the whole process group
//     while the leader is still an unreaped zombie, so its pgid cannot have
//     been reused, then reap the leader. A command that ended on its own
//     keeps its background jobs (`server &`, as over ssh); their group is
//     remembered and killed when the runtime closes, with the daemon.
//  5. Drain the output and record pipes until EOF or Options.DrainTimeout,
//     so a process that escaped the group (setsid) while holding a pipe
//     cannot hang the request.
package host
