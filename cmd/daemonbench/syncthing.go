package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"time"
)

// stFolder is the id of the one folder the Syncthing peers share.
const stFolder = "bench"

// stPeers is two Syncthing instances on loopback sharing one folder, with
// the file watcher at its delay and nothing but 127.0.0.1: no discovery,
// relays, NAT traversal, usage reporting or upgrades.
type stPeers struct {
	a, b     *stNode
	watchDel time.Duration
}

func (p stPeers) name() string           { return "syncthing" }
func (p stPeers) dirs() (string, string) { return p.a.dir, p.b.dir }
func (p stPeers) delay() time.Duration   { return p.watchDel }
func (p stPeers) pids() []int            { return []int{p.a.cmd.Process.Pid, p.b.cmd.Process.Pid} }

// holds reads how long A's watch aggregator held each save back from its
// trace in A's log.
func (p stPeers) holds(rel string, starts []time.Time) ([]hold, error) {
	lines, err := readAggregatorLog(p.a.log)
	if err != nil {
		return nil, err
	}
	out := make([]hold, len(starts))
	for i, s := range starts {
		if out[i], err = holdOf(lines, rel, s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p stPeers) check(context.Context) error {
	for _, n := range []*stNode{p.a, p.b} {
		if n.exited() {
			return fmt.Errorf("syncthing %s exited; see %s", n.name, n.log)
		}
	}
	return nil
}

// stNode is one Syncthing instance: its home (keys, config, database),
// its folder, its ports and its process.
type stNode struct {
	name, home, dir, log string
	id, apiKey           string
	port, guiPort        int
	cmd                  *exec.Cmd
	done                 chan struct{}
}

// startSyncthing starts two peers of bin in sub, a directory of the lab,
// with fsWatcherDelayS set to delay (whole seconds), and returns once a
// file written on A has reached B.
func (l *lab) startSyncthing(ctx context.Context, bin, sub string, delay time.Duration) (stPeers, error) {
	p := stPeers{watchDel: delay.Truncate(time.Second)}
	if p.watchDel < time.Second {
		return stPeers{}, fmt.Errorf("syncthing's watcher delay is whole seconds, at least 1; got %s", delay)
	}
	var err error
	if p.a, err = newSTNode(ctx, bin, filepath.Join(l.dir, sub, "a")); err != nil {
		return stPeers{}, err
	}
	if p.b, err = newSTNode(ctx, bin, filepath.Join(l.dir, sub, "b")); err != nil {
		return stPeers{}, err
	}
	for _, pr := range [][2]*stNode{{p.a, p.b}, {p.b, p.a}} {
		if err := pr[0].configure(pr[1], p.watchDel); err != nil {
			return stPeers{}, err
		}
		if err := pr[0].start(bin); err != nil {
			return stPeers{}, err
		}
		l.closer = append(l.closer, pr[0].stop)
	}
	return p, nil
}

// newSTNode generates the keys of a node in dir.
func newSTNode(ctx context.Context, bin, dir string) (*stNode, error) {
	n := &stNode{name: filepath.Base(dir), home: filepath.Join(dir, "home"), dir: filepath.Join(dir, "team"), log: dir + ".log"}
	if err := os.MkdirAll(n.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", n.dir, err)
	}
	if _, err := stOutput(ctx, bin, n.home, "generate", "--home="+n.home, "--no-default-folder", "--skip-port-probing"); err != nil {
		return nil, err
	}
	id, err := stOutput(ctx, bin, n.home, "--home="+n.home, "--device-id")
	if err != nil {
		return nil, err
	}
	n.id = id
	var key [16]byte
	rand.Read(key[:])
	n.apiKey = hex.EncodeToString(key[:])
	if n.port, err = freePort(); err != nil {
		return nil, err
	}
	if n.guiPort, err = freePort(); err != nil {
		return nil, err
	}
	return n, nil
}

// stOutput runs a syncthing command and returns its last line of output.
func stOutput(ctx context.Context, bin, home string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = stEnv(home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("syncthing %s: %w: %s", args[0], err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// stEnv is a clean environment: no upgrades, no default folder, the
// home's own HOME, and the watch aggregator's trace in the log.
func stEnv(home string) []string {
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "STNOUPGRADE=1", "STNODEFAULTFOLDER=1", "STNORESTART=1",
		"STTRACE=watchaggregator"} // read by stPeers.holds
	if tz, ok := os.LookupEnv("TZ"); ok {
		env = append(env, "TZ="+tz) // its log's times in the bench's zone
	}
	return env
}

// freePort returns a loopback port free at the time of the call.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// stConfig is the node's whole config.xml; what it leaves out Syncthing
// fills in with its defaults.
var stConfig = template.Must(template.New("config").Parse(`<configuration version="36">
    <folder id="` + stFolder + `" label="bench" path="{{.Self.Dir}}" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="{{.Delay}}" ignorePerms="false" autoNormalize="true">
        <filesystemType>basic</filesystemType>
        <device id="{{.Self.ID}}"></device>
        <device id="{{.Peer.ID}}"></device>
        <minDiskFree unit="%">0</minDiskFree>
        <disableFsync>false</disableFsync>
    </folder>
    <device id="{{.Self.ID}}" name="{{.Self.Name}}" compression="metadata">
        <address>dynamic</address>
    </device>
    <device id="{{.Peer.ID}}" name="{{.Peer.Name}}" compression="metadata">
        <address>tcp://127.0.0.1:{{.Peer.Port}}</address>
    </device>
    <gui enabled="true" tls="false">
        <address>127.0.0.1:{{.Self.GUIPort}}</address>
        <apikey>{{.Self.APIKey}}</apikey>
    </gui>
    <options>
        <listenAddress>tcp://127.0.0.1:{{.Self.Port}}</listenAddress>
        <globalAnnounceEnabled>false</globalAnnounceEnabled>
        <localAnnounceEnabled>false</localAnnounceEnabled>
        <relaysEnabled>false</relaysEnabled>
        <natEnabled>false</natEnabled>
        <urAccepted>-1</urAccepted>
        <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
        <crashReportingEnabled>false</crashReportingEnabled>
        <startBrowser>false</startBrowser>
        <setLowPriority>false</setLowPriority>
    </options>
</configuration>
`))

// stNodeView is what the config template reads of a node.
type stNodeView struct {
	Name, ID, APIKey, Dir string
	Port, GUIPort         int
}

func (n *stNode) view() stNodeView {
	return stNodeView{Name: n.name, ID: n.id, APIKey: n.apiKey, Dir: n.dir, Port: n.port, GUIPort: n.guiPort}
}

// configure writes the node's config.xml, sharing the folder with peer.
func (n *stNode) configure(peer *stNode, delay time.Duration) error {
	f, err := os.Create(filepath.Join(n.home, "config.xml"))
	if err != nil {
		return fmt.Errorf("write syncthing config: %w", err)
	}
	err = stConfig.Execute(f, struct {
		Self, Peer stNodeView
		Delay      int
	}{n.view(), peer.view(), int(delay / time.Second)})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write syncthing config: %w", err)
	}
	return nil
}

// start starts "syncthing serve" on the node's home.
func (n *stNode) start(bin string) error {
	logf, err := os.OpenFile(n.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open syncthing log: %w", err)
	}
	n.cmd = exec.Command(bin, "serve", "--home="+n.home, "--no-browser", "--no-restart", "--no-upgrade",
		"--logflags=7") // date, time and microseconds: see stPeers.holds
	n.cmd.Env = stEnv(n.home)
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	if err := n.cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start syncthing: %w", err)
	}
	n.done = make(chan struct{})
	go func() {
		defer close(n.done)
		defer logf.Close()
		_ = n.cmd.Wait() // how it ended shows in its log
	}()
	return nil
}

func (n *stNode) exited() bool {
	select {
	case <-n.done:
		return true
	default:
		return false
	}
}

// stop asks the node to exit, kills it after stopTimeout, and waits.
func (n *stNode) stop() error {
	if n.exited() {
		return nil
	}
	_ = n.cmd.Process.Signal(os.Interrupt) // it may have exited meanwhile
	select {
	case <-n.done:
		return nil
	case <-time.After(15 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.done
		return fmt.Errorf("syncthing %s did not stop within 15 s; killed", n.name)
	}
}
