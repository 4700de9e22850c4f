package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File names in the state directory. The backup layout is lumberjack's:
// <name>-<UTC time><ext>, the time to the millisecond, so names sort in time
// order.
const (
	liveName         = "audit.jsonl"
	lockName         = "audit.lock"
	backupPrefix     = "audit-"
	backupExt        = ".jsonl"
	backupTimeLayout = "2006-01-02T15-04-05.000"
)

// backupPath is the name lumberjack gives a backup made at t.
func backupPath(dir string, t time.Time) string {
	return filepath.Join(dir, backupPrefix+t.UTC().Format(backupTimeLayout)+backupExt)
}

// isBackupName reports whether name is one of our rotated files.
func isBackupName(name string) bool {
	stamp, ok := strings.CutPrefix(name, backupPrefix)
	if !ok {
		return false
	}
	stamp, ok = strings.CutSuffix(stamp, backupExt)
	if !ok {
		return false
	}
	_, err := time.Parse(backupTimeLayout, stamp)
	return err == nil
}

// backupFiles returns the paths of dir's backups, oldest first.
func backupFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list audit files: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && isBackupName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, n)
	}
	return paths, nil
}

// chainFiles returns the files of the chain in order: backups oldest first,
// then the live file if there is one.
func chainFiles(dir string) ([]string, error) {
	paths, err := backupFiles(dir)
	if err != nil {
		return nil, err
	}
	live := filepath.Join(dir, liveName)
	switch _, err := os.Lstat(live); {
	case err == nil:
		paths = append(paths, live)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("list audit files: %w", err)
	}
	return paths, nil
}
