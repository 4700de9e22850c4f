package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// floorOp starts `bash --noprofile --norc -c true` directly: nothing that runs a
// command through bash can be faster.
func floorOp(bash string) op {
	return func(ctx context.Context) error {
		if err := exec.CommandContext(ctx, bash, "--noprofile", "--norc", "-c", "true").Run(); err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		return nil
	}
}

// sshTarget is the loopback sshd that bench/ssh-baseline.sh set up.
type sshTarget struct {
	port    int
	user    string
	key     string
	control string // ControlPath of the master connection already up
}

// args returns the ssh command line, without "ssh", that runs command on t.
func (t sshTarget) args(command string) []string {
	return []string{
		"-F", "/dev/null", "-T", "-p", strconv.Itoa(t.port), "-i", t.key,
		"-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
		"-o", "ControlMaster=auto", "-o", "ControlPath=" + t.control, "-o", "ControlPersist=yes",
		t.user + "@127.0.0.1", command,
	}
}

// sshOp runs `ssh -T ... true` over the master connection.
func sshOp(t sshTarget) op {
	args := t.args("true")
	return func(ctx context.Context) error {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, "ssh", args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("ssh: %w: %s", err, strings.TrimSpace(out.String()))
		}
		return nil
	}
}
