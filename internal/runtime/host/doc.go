// Package host is the "host" runtime: it runs an approved command as the
// current user, in a fresh bash with an environment built from scratch, in
// a session and process group of its own, without a controlling terminal.
//
// One Run goes through these steps, in order:
//
//  1. Build the wrapper script (wrapper.go): an EXIT trap that reports the
//     final status, directory and exported variables in a private file
//     (fd 3) marked with a fresh random nonce; `cd` to the requested
//     directory; `eval` the command exactly as it was approved. A command
//     that provably cannot change the shell's directory or variables
//     (stateless.go) gets the wrapper without the trap.
//  2. Get a bash running the wrapper with Env exactly as requested, stdout
//     and stderr on one pipe, stdin from the request or /dev/null, and a
//     session (so process group) of its own. With Options.WarmShells, take an idle warm
//     shell started with exactly req.Env and write it its payload (warm.go,
//     pool.go, warmscript.go); otherwise, or if there is none, start
//     `bash --noprofile --norc -c <wrapper>` in the requested directory
//     (proc.go). The timeout counts from here.
//  3. Wait for the shell (group leader) to exit without reaping it, or for
//     the output to end with a complete record in the file: the answer then
//     comes from the record while the shell exits (run.go). On
//     timeout or cancellation first send SIGTERM to the group and give it
//     Options.KillGrace to exit.
//  4. After a timeout or cancellation, SIGKILL the whole process group
//     while the leader is still an unreaped zombie, so its pgid cannot have
//     been reused, then reap the leader. A command that ended on its own
//     keeps its background jobs (`server &`, as over ssh); their group is
//     remembered and killed when the runtime closes, with the daemon.
//  5. Drain the output pipe until EOF or Options.DrainTimeout, so a
//     process that escaped the group (setsid) while holding the pipe
//     cannot hang the request.
//
// # Warm shells
//
// Starting bash (fork, exec, dynamic loading, init) is most of the cost of
// running a short command. A warm shell is a bash started before its
// request with the environment of recent requests, in "/", with fd 0 on
// /dev/null, a pipe for output (1, 2), the record file (3) and pipes for
// the payload (4) and the request's stdin (5). It runs only the bootstrap, which waits,
// using no CPU, for the payload pipe to be written and closed, and runs
// nothing unless the payload arrived whole. The payload closes fds 4 and 5
// (or moves 5 to 0 for a request with stdin), resets SECONDS, enters the
// physical path of the directory, as a shell started there has, and sets
// BASH_EXECUTION_STRING to the wrapper, which the bootstrap then evaluates
// at the top level: what the command sees is what a cold shell shows it,
// and the tests run every case on both paths and compare the two.
//
// One goroutine keeps the pool filled off the request path; Close stops
// it and kills the idle shells. A warm shell found dead is discarded and
// the request gets a cold one; so does a request whose environment has
// variables bash or the loader act on at start-up (see warmable) or whose
// wrapper is longer than maxWarmScript. Whether a warm shell was free
// changes how soon a command starts, never what it sees.
package host
