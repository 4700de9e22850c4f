//go:build linux

package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// proc is one shell running one request, cold or warm, and the parent's
// ends of its pipes. Every *os.File handed to exec.Cmd is a real pipe, so
// exec starts no copying goroutines and Wait never waits on I/O; the
// reading is ours to bound.
type proc struct {
	cmd     *exec.Cmd
	started time.Time // when the request got the shell

	outR    *os.File // read end of the merged output
	recF    *os.File // the EXIT trap's record file, the shell's fd 3
	scriptW *os.File // write end of a warm shell's payload pipe; nil when cold
	payload string   // what feed writes to scriptW
	stdinW  *os.File // write end of stdin; nil when stdin is /dev/null

	out     capture
	exited  chan struct{} // closed when the leader exited (not yet reaped)
	outDone chan struct{} // closed when the output drain stopped
	inDone  chan struct{} // closed when feeding the payload and stdin stopped
}

// newProc returns a proc with its captures and channels, for a shell yet
// to be attached.
func newProc(maxOutput int) *proc {
	return &proc{
		out:     capture{limit: maxOutput},
		exited:  make(chan struct{}),
		outDone: make(chan struct{}),
		inDone:  make(chan struct{}),
	}
}

// startCold starts a fresh shell running script for req, in req.Cwd, and
// the goroutines that feed and drain its pipes.
func (r *Runtime) startCold(req runtime.Request, script string) (p *proc, err error) {
	var ps pipes
	defer func() { ps.done(err != nil) }()

	p = newProc(req.MaxOutput)
	var outW *os.File
	if p.outR, outW, err = ps.fromChild("output"); err != nil {
		return nil, err
	}
	if p.recF, err = newRecordFile(); err != nil {
		return nil, err
	}
	ps.parent = append(ps.parent, p.recF)                             // closed with the pipes if the start fails
	p.cmd = shellCmd(r.shell, script, req.Env, req.Cwd, outW, p.recF) // fd 3 == recordFD
	if req.Stdin != nil {
		var inR *os.File
		if inR, p.stdinW, err = ps.toChild("stdin"); err != nil {
			return nil, err
		}
		p.cmd.Stdin = inR
	}

	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, startError(req.Cwd, err)
	}
	p.watch(req.Stdin)
	return p, nil
}

// watch starts the goroutines that see a started shell through: one waits
// for the leader to exit, two drain the pipes, one feeds the payload and
// stdin. finish waits for all of them.
func (p *proc) watch(stdin []byte) {
	go waitExited(p.cmd.Process.Pid, p.exited)
	go drain(p.outR, &p.out, p.outDone)
	go p.feed(stdin)
}

// feed writes a warm shell's payload and closes its pipe (the shell reads
// it to EOF before running anything), then writes stdin and closes it so
// the command sees EOF. Write errors are dropped on purpose: EPIPE means the
// shell died or the command did not read all of its input, and a deadline
// means finish stopped the feeding; none of that is the command's failure,
// and the result reports how the shell ended.
func (p *proc) feed(stdin []byte) {
	defer close(p.inDone)
	if p.scriptW != nil {
		_, _ = p.scriptW.Write([]byte(p.payload))
		_ = p.scriptW.Close()
	}
	if p.stdinW != nil {
		_, _ = p.stdinW.Write(stdin)
		_ = p.stdinW.Close()
	}
}

// finish stops feeding, drains the output until EOF or drainTimeout, and
// closes the parent's ends and the record file. Call it only after the
// process group was killed, so that EOF comes at once unless a process
// escaped the group.
func (p *proc) finish(drainTimeout time.Duration) {
	// Setting a deadline cannot fail for os.Pipe ends, which are always in
	// the runtime poller on Linux; on a closed file it is a no-op.
	for _, w := range []*os.File{p.scriptW, p.stdinW} {
		if w != nil {
			_ = w.SetWriteDeadline(time.Now())
		}
	}
	deadline := time.Now().Add(drainTimeout)
	_ = p.outR.SetReadDeadline(deadline)
	<-p.inDone
	<-p.outDone
	closeFiles([]*os.File{p.outR, p.recF})
}

// record returns the trap's record if the file holds a complete one marked
// with nonce. Call it once the output has ended or the shell has exited,
// and before finish closes the file.
func (p *proc) record(nonce string, memo *exportsMemo) (record, bool) {
	b, ok := readRecordFile(p.recF)
	if !ok {
		return record{}, false
	}
	rec, err := parseRecord(b, nonce, memo)
	return rec, err == nil
}

// startError classifies an exec failure; a directory that cannot be
// entered is ErrCwdUnusable.
func startError(cwd string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "chdir" {
		return fmt.Errorf("%w: %s: %w", runtime.ErrCwdUnusable, cwd, pe.Err)
	}
	return fmt.Errorf("start shell: %w", err)
}
