package server

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// cwdError explains why a working directory cannot be used.
type cwdError struct {
	dir     string
	outside bool
	msg     string
}

func (e *cwdError) Error() string { return e.msg }

// resolveCwd picks the directory a command starts in: the requested one,
// else the session's, else the workspace. The result is symlink-resolved, so
// the boundary check sees where the path really leads. A session cwd that
// has since disappeared falls back to the workspace rather than wedging the
// session; a requested one that does not exist is an error the agent sees.
func (s *Server) resolveCwd(requested, sessionCwd string) (string, error) {
	dir := requested
	if dir == "" {
		dir = sessionCwd
		if dir != "" {
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				dir = ""
			}
		}
	}
	if dir == "" {
		dir = s.cfg.Workspace
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(dir))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &cwdError{dir: dir, msg: "working directory " + dir + " does not exist"}
	case err != nil:
		return "", &cwdError{dir: dir, msg: "working directory " + dir + " cannot be resolved"}
	}
	info, err := os.Stat(real)
	if err != nil || !info.IsDir() {
		return "", &cwdError{dir: dir, msg: "working directory " + dir + " is not a directory"}
	}
	if !s.cfg.AllowOutsideWorkspace && !within(s.cfg.Workspace, real) {
		msg := "working directory " + dir + " is outside the workspace " + s.cfg.Workspace
		if real != filepath.Clean(dir) {
			msg += " (it resolves to " + real + ")"
		}
		return "", &cwdError{dir: dir, outside: true, msg: msg}
	}
	return real, nil
}

// within reports whether path lies in root or below it. Both are clean,
// absolute and symlink-resolved.
func within(root, path string) bool {
	if root == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}
