package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// floorEnv, set in its environment, makes this command the floor server:
// it listens on a free loopback port, prints the address on its standard
// output and serves until its standard input ends.
const floorEnv = "TEAMMEMD_SERVERBENCH_FLOOR"

// floorChecksum is the checksum the floor answers every PUT with.
const floorChecksum = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// floorMain runs the floor server until stdin ends.
func floorMain(stdin io.Reader, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(stderr, "serverbench floor: listen:", err)
		return 1
	}
	body, err := json.Marshal(api.PutResponse{OrganizationID: "org", Repo: "bench/floor", Version: 1,
		LastModified: time.Now().UTC(), Checksum: floorChecksum})
	if err != nil {
		fmt.Fprintln(stderr, "serverbench floor: encode answer:", err)
		return 1
	}
	srv := &http.Server{Handler: floorHandler(body), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: time.Minute, WriteTimeout: time.Minute, IdleTimeout: time.Minute}
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	fmt.Fprintln(stdout, ln.Addr().String())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "serverbench floor: serve:", err)
		return 1
	}
	return 0
}

// floorHandler reads a PUT's body, within the server's body cap, and
// answers 200 with body.
func floorHandler(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut {
			http.Error(w, "PUT only", http.StatusMethodNotAllowed)
			return
		}
		if _, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, api.DefaultMaxBodyBytes)); err != nil {
			http.Error(w, "cannot read request body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", api.ETag(floorChecksum))
		_, _ = w.Write(body)
	})
}

// floorProc is a running floor server process.
type floorProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   string
}

// startFloor starts this executable as the floor server and reads its
// address.
func startFloor(ctx context.Context) (*floorProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), floorEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("floor stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("floor stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start floor server: %w", err)
	}
	f := &floorProc{cmd: cmd, stdin: stdin}
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return nil, errors.Join(fmt.Errorf("read floor server's address: %w", err), f.stop())
	}
	f.url = "http://" + strings.TrimSpace(addr)
	return f, nil
}

// stop ends the floor server's input, which stops it, and waits.
func (f *floorProc) stop() error {
	_ = f.stdin.Close()
	if err := f.cmd.Wait(); err != nil {
		return fmt.Errorf("floor server: %w", err)
	}
	return nil
}
