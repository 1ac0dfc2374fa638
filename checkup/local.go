package checkup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TeamDir checks that dir is a directory this user can write and no other
// user can: someone else's note in it would be pushed to the team. A
// directory that does not exist yet is fine where it can be created.
func TeamDir(dir string) Result {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		parent := existingParent(dir)
		if err := writable(parent); err != nil {
			return Result{Fail, fmt.Sprintf("%s does not exist and %s is not writable: %v", dir, parent, err), "mkdir -p " + dir}
		}
		return Result{OK, dir + " (created at the first sync)", ""}
	}
	switch {
	case err != nil:
		return Result{Fail, err.Error(), "check the permissions of " + filepath.Dir(dir)}
	case !info.IsDir():
		return Result{Fail, dir + " is not a directory", "move that file away: the team directory must be a directory"}
	case info.Mode().Perm()&0o022 != 0:
		return Result{Fail, fmt.Sprintf("%s is writable by other users (mode %04o): a note they plant there is pushed to your team",
			dir, info.Mode().Perm()), "chmod go-w " + dir}
	}
	if err := writable(dir); err != nil {
		return Result{Fail, fmt.Sprintf("%s is not writable: %v", dir, err), "chmod u+rwx " + dir}
	}
	return Result{OK, dir, ""}
}

// existingParent is the nearest directory above dir that exists.
func existingParent(dir string) string {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil || p == filepath.Dir(p) {
			return p
		}
	}
}

// Inotify checks that the inotify limits in sysDir (/proc/sys/fs/inotify;
// "" where there is none) leave room to watch the team directories dirs,
// one instance per repo, with headroom for the editors and tools that
// watch files too.
func Inotify(sysDir string, dirs []string) Result {
	if sysDir == "" {
		return Result{Skip, "not Linux", ""}
	}
	n := 0
	for _, d := range dirs {
		n += countDirs(d)
	}
	watches, err1 := readSysctl(filepath.Join(sysDir, "max_user_watches"))
	instances, err2 := readSysctl(filepath.Join(sysDir, "max_user_instances"))
	needWatches, needInstances := n+1024, len(dirs)+8
	switch {
	case err1 != nil || err2 != nil:
		return Result{Fail, "cannot read the limits: " + errors.Join(err1, err2).Error(), "check that /proc is mounted"}
	case watches < needWatches:
		return Result{Fail, fmt.Sprintf("fs.inotify.max_user_watches is %d; the team directories need %d of them, and other programs more", watches, n),
			"sudo sysctl fs.inotify.max_user_watches=524288, and set it in /etc/sysctl.d/ to keep it"}
	case instances < needInstances:
		return Result{Fail, fmt.Sprintf("fs.inotify.max_user_instances is %d; the daemon needs one per repo (%d), and other programs more", instances, len(dirs)),
			"sudo sysctl fs.inotify.max_user_instances=1024, and set it in /etc/sysctl.d/ to keep it"}
	}
	return Result{OK, fmt.Sprintf("max_user_watches %d, max_user_instances %d; the team directories need %d %s",
		watches, instances, n, Plural(n, "watch", "watches")), ""}
}

// countDirs counts dir and the directories below it, as the watcher
// watches them; a missing dir counts as the one it will be.
func countDirs(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			n++
		}
		return nil
	})
	return max(n, 1)
}

func readSysctl(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// MaxClockSkew is how far this machine's clock may be from the server's.
const MaxClockSkew = time.Minute

// Clock checks this machine's clock, now, against the server's Date,
// server; zero when no server answered.
func Clock(now, server time.Time) Result {
	if server.IsZero() {
		return Result{Skip, "needs the server's Date", ""}
	}
	skew := now.Sub(server).Round(time.Second)
	if skew > MaxClockSkew || skew < -MaxClockSkew {
		return Result{Fail, fmt.Sprintf("this machine's clock is %s off the server's", skew),
			"turn on time synchronisation (timedatectl set-ntp true; on macOS, Date & Time settings)"}
	}
	return Result{OK, fmt.Sprintf("within %s of the server's", MaxClockSkew), ""}
}
