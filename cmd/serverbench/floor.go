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
// output and serves until its standard input ends. Its value is 1 for the
// plain floor, or a store floor's spec (see openFloorWriter).
const floorEnv = "TEAMMEMD_SERVERBENCH_FLOOR"

// floorChecksum is the checksum the floor answers every PUT with.
const floorChecksum = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// floorMain runs the floor server of spec until stdin ends.
func floorMain(spec string, stdin io.Reader, stdout, stderr io.Writer) int {
	store, err := openFloorWriter(context.Background(), spec)
	if err != nil {
		fmt.Fprintln(stderr, "serverbench floor:", err)
		return 1
	}
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
	srv := &http.Server{Handler: floorHandler(body, store), ReadHeaderTimeout: 10 * time.Second,
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
	if store != nil {
		if err := store.close(); err != nil {
			fmt.Fprintln(stderr, "serverbench floor: close store:", err)
			return 1
		}
	}
	return 0
}

// floorHandler reads a PUT's body, within the server's body cap, writes
// it to store unless store is nil, and answers 200 with body.
func floorHandler(body []byte, store floorWriter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut {
			http.Error(w, "PUT only", http.StatusMethodNotAllowed)
			return
		}
		in := http.MaxBytesReader(w, r.Body, api.DefaultMaxBodyBytes)
		if store == nil {
			if _, err := io.Copy(io.Discard, in); err != nil {
				http.Error(w, "cannot read request body", http.StatusBadRequest)
				return
			}
		} else if err := storeBody(r.Context(), store, r.URL.Query().Get(api.ParamRepo), in); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", api.ETag(floorChecksum))
		_, _ = w.Write(body)
	})
}

// storeBody reads in and writes it to store as repo's.
func storeBody(ctx context.Context, store floorWriter, repo string, in io.Reader) error {
	b, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("cannot read request body: %w", err)
	}
	return store.write(ctx, repo, b)
}

// floorProc is a running floor server process.
type floorProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   string
}

// startFloor starts this executable as the floor server of spec and reads
// its address.
func startFloor(ctx context.Context, spec string) (*floorProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), floorEnv+"="+spec)
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
