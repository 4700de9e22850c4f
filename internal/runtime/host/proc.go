package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// proc is one started shell and the parent's ends of its pipes. Every
// *os.File handed to exec.Cmd is a real pipe, so exec starts no copying
// goroutines and Wait never waits on I/O; the reading is ours to bound.
type proc struct {
	cmd     *exec.Cmd
	started time.Time

	outR, recR *os.File // read ends: merged output, EXIT-trap record
	stdinW     *os.File // write end of stdin; nil when stdin is /dev/null

	out, rec capture
	exited   chan struct{} // closed when the leader exited (not yet reaped)
	outDone  chan struct{} // closed when the output drain stopped
	recDone  chan struct{} // closed when the record drain stopped
	inDone   chan struct{} // closed when feeding stdin stopped
}

// start launches the shell running script for req, with the pipes and the
// goroutines that feed and drain them.
func (r *Runtime) start(req runtime.Request, script string) (p *proc, err error) {
	var parentEnds, childEnds []*os.File
	defer func() {
		// The child holds its own copies once started; the parent keeps only
		// the ends it reads or writes, and none of them if start failed.
		closeFiles(childEnds)
		if err != nil {
			closeFiles(parentEnds)
		}
	}()
	pipe := func(what string) (rd, wr *os.File, err error) {
		rd, wr, err = os.Pipe()
		if err != nil {
			return nil, nil, fmt.Errorf("make %s pipe: %w", what, err)
		}
		return rd, wr, nil
	}

	p = &proc{
		out:     capture{limit: req.MaxOutput},
		rec:     capture{limit: recordLimit},
		exited:  make(chan struct{}),
		outDone: make(chan struct{}),
		recDone: make(chan struct{}),
		inDone:  make(chan struct{}),
	}
	var outW, recW *os.File
	if p.outR, outW, err = pipe("output"); err != nil {
		return nil, err
	}
	parentEnds, childEnds = append(parentEnds, p.outR), append(childEnds, outW)
	if p.recR, recW, err = pipe("record"); err != nil {
		return nil, err
	}
	parentEnds, childEnds = append(parentEnds, p.recR), append(childEnds, recW)

	env := req.Env
	if env == nil {
		env = []string{} // a nil Env would make exec pass the daemon's own
	}
	p.cmd = &exec.Cmd{
		Path:        r.shell,
		Args:        []string{"bash", "--noprofile", "--norc", "-c", script},
		Env:         env,
		Dir:         req.Cwd,
		Stdout:      outW,
		Stderr:      outW,
		ExtraFiles:  []*os.File{recW}, // fd 3 == recordFD
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	if req.Stdin != nil {
		var inR *os.File
		if inR, p.stdinW, err = pipe("stdin"); err != nil {
			return nil, err
		}
		parentEnds, childEnds = append(parentEnds, p.stdinW), append(childEnds, inR)
		p.cmd.Stdin = inR
	}

	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, startError(req.Cwd, err)
	}
	go waitExited(p.cmd.Process.Pid, p.exited)
	go drain(p.outR, &p.out, p.outDone)
	go drain(p.recR, &p.rec, p.recDone)
	go p.feed(req.Stdin)
	return p, nil
}

// feed writes stdin and closes it so the command sees EOF. Write errors are
// dropped on purpose: EPIPE means the command did not read all of its
// input, and a deadline means finish stopped the feeding; neither is the
// command's failure.
func (p *proc) feed(stdin []byte) {
	defer close(p.inDone)
	if p.stdinW == nil {
		return
	}
	_, _ = p.stdinW.Write(stdin)
	_ = p.stdinW.Close()
}

// finish stops feeding stdin, drains both pipes until EOF or drainTimeout,
// and closes the parent's ends. Call it only after the process group was
// killed, so that EOF comes at once unless a process escaped the group.
func (p *proc) finish(drainTimeout time.Duration) {
	// Setting a deadline cannot fail for os.Pipe ends, which are always in
	// the runtime poller on Linux; on a closed file it is a no-op.
	if p.stdinW != nil {
		_ = p.stdinW.SetWriteDeadline(time.Now())
	}
	deadline := time.Now().Add(drainTimeout)
	_ = p.outR.SetReadDeadline(deadline)
	_ = p.recR.SetReadDeadline(deadline)
	<-p.inDone
	<-p.outDone
	<-p.recDone
	closeFiles([]*os.File{p.outR, p.recR})
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

// closeFiles closes fs. Close errors on pipe ends carry no information the
// caller could act on (no data is buffered in user space), so they are
// dropped.
func closeFiles(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
