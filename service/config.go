package service

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/credential"
	"github.com/teammemd/teammemd/sync/daemon"
)

// existing is the config file install starts from: as it is on disk
// (nil when absent) and decoded.
type existing struct {
	path      string
	data      []byte
	cfg       Config
	hasClient bool // the file has a [client] table
	decode    func(path string, data []byte) (Config, error)
}

func readExisting(env Env, path string) (existing, error) {
	sc := existing{path: path, decode: env.Decode}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sc, nil
	}
	if err != nil {
		return sc, ConfigError{fmt.Errorf("read config: %w", err)}
	}
	if sc.cfg, err = env.Decode(path, data); err != nil {
		return sc, ConfigError{fmt.Errorf("%w (fix it, or pass --config to write a new file elsewhere)", err)}
	}
	var raw map[string]any
	md, _ := toml.Decode(string(data), &raw)
	sc.data, sc.hasClient = data, md.IsDefined("client")
	return sc, nil
}

// additions are what install adds to the config: [client] keys it lacks,
// checkouts it does not list, and the token to keep in the token file.
type additions struct {
	server, tokenFile string
	allowInsecure     bool
	checkouts         []string
	token             string // written to tokenPath, never to the config
	tokenPath         string
}

// installConfig returns the files install writes besides the unit: the
// config, when it needs anything, and the token file, when a token was
// given. The config then names a server, a token file and a repo.
func installConfig(env Env, f Options, path, reload string, p *prompter) ([]FileWrite, error) {
	sc, err := readExisting(env, path)
	if err != nil {
		return nil, err
	}
	var add additions
	for _, step := range []func(Env, Options, existing, *additions, *prompter) error{
		addServer, addToken, addCheckouts,
	} {
		if err := step(env, f, sc, &add, p); err != nil {
			return nil, err
		}
	}
	add.allowInsecure = f.AllowInsecure && !sc.cfg.Client.AllowInsecure
	text, err := composeConfig(sc, add, reload)
	if err != nil {
		return nil, err
	}
	var files []FileWrite
	if !bytes.Equal(text, sc.data) {
		files = append(files, FileWrite{Path: path, Data: text, Mode: 0o600})
	}
	if add.token != "" {
		files = append(files, FileWrite{Path: add.tokenPath, Data: []byte(add.token + "\n"), Mode: 0o600, Secret: true})
	}
	return files, nil
}

// addServer takes --server, or the config's, or asks for one.
func addServer(env Env, f Options, sc existing, add *additions, p *prompter) error {
	have := sc.cfg.Client.Server
	server := f.Server
	switch {
	case server != "" && have != "" && server != have:
		return conflict(sc.path, "[client] server", have, "--server", server)
	case server == "" && (have != "" || len(f.Checkouts) == 0 && everyRepo(sc.cfg, func(r daemon.RepoConfig) bool { return r.Server != "" })):
		return checkServers(sc.cfg, f.AllowInsecure)
	case server == "" && !env.Interactive:
		return errInstallNoServer
	case server == "":
		ans, err := p.ask("Server URL (e.g. https://teammemd.example.com)", "")
		if err != nil {
			return err
		}
		if server = ans; server == "" {
			return errInstallNoServer
		}
	}
	if err := (memsync.ClientConfig{Server: server}).Validate(); err != nil {
		return InputError{err}
	}
	if have == "" {
		add.server = server
	}
	cfg := sc.cfg
	cfg.Client.Server = server
	return checkServers(cfg, f.AllowInsecure)
}

// checkServers refuses a server that would get the token in the clear.
func checkServers(cfg Config, allow bool) error {
	client := cfg.Client
	client.AllowInsecure = client.AllowInsecure || allow
	servers := []string{client.Server}
	for _, r := range cfg.Daemon.Repos {
		servers = append(servers, r.Server)
	}
	for _, s := range servers {
		if s == "" {
			continue
		}
		if err := client.CheckServer(s); err != nil {
			return InputError{fmt.Errorf("%w (or pass --allow-insecure)", err)}
		}
	}
	return nil
}

// addToken takes --token-file, or a token from stdin, or the config's token
// file, or asks for the token.
func addToken(env Env, f Options, sc existing, add *additions, p *prompter) error {
	have := sc.cfg.Client.TokenFile
	switch {
	case f.TokenFile != "" && f.TokenStdin:
		return InputError{errors.New("pass --token-file or --token-stdin, not both")}
	case f.TokenFile != "":
		abs, err := filepath.Abs(f.TokenFile)
		if err != nil {
			return fmt.Errorf("token file: %w", err)
		}
		if have != "" && have != abs {
			return conflict(sc.path, "[client] token_file", have, "--token-file", abs)
		}
		if have == "" {
			add.tokenFile = abs
		}
		return checkTokenFile(abs)
	case f.TokenStdin:
		tok, err := io.ReadAll(io.LimitReader(p.in, 64<<10))
		if err != nil {
			return fmt.Errorf("read the token from stdin: %w", err)
		}
		return keepToken(env, strings.TrimSpace(string(tok)), have, add)
	case have != "" && checkTokenFile(have) == nil,
		have == "" && len(f.Checkouts) == 0 && everyRepo(sc.cfg, func(r daemon.RepoConfig) bool { return r.TokenFile != "" }),
		have == "" && hasLogin(env, cmp.Or(add.server, sc.cfg.Client.Server)):
		return nil
	case !env.Interactive && have != "":
		return fmt.Errorf("%w; or pass --token-file or --token-stdin", checkTokenFile(have))
	case !env.Interactive:
		return errInstallNoToken
	}
	tok, err := p.askSecret("API token (tmd_...; not shown)")
	if err != nil {
		return err
	}
	return keepToken(env, tok, have, add)
}

// keepToken arranges for tok to be written to the config's token file, or
// to token in the config directory.
func keepToken(env Env, tok, have string, add *additions) error {
	switch err := credential.Check(tok); {
	case tok == "":
		return InputError{errors.New("the API token is empty: give the one teammemd token create printed (with --token-stdin, on standard input)")}
	case err != nil:
		return InputError{err}
	}
	add.token = tok
	add.tokenPath = have
	if have == "" {
		add.tokenPath = filepath.Join(env.Dirs.Config, "token")
		add.tokenFile = add.tokenPath
	}
	return nil
}

// checkTokenFile refuses a token file that is missing, empty, readable by
// other users, or holding more than the token.
func checkTokenFile(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return InputError{fmt.Errorf("token file: %w", err)}
	}
	switch {
	case !info.Mode().IsRegular() || info.Size() == 0:
		return InputError{fmt.Errorf("token file %s must be a file holding the token", path)}
	case info.Mode().Perm()&0o077 != 0:
		return InputError{fmt.Errorf("token file %s is readable by other users (mode %04o): chmod 600 %s", path, info.Mode().Perm(), path)}
	}
	if _, err := credential.ReadFile(path); err != nil {
		return InputError{err}
	}
	return nil
}

// addCheckouts adds each --checkout the config does not list; with no repo
// at all, it asks for one.
func addCheckouts(env Env, f Options, sc existing, add *additions, p *prompter) error {
	dirs := f.Checkouts
	if len(dirs) == 0 && len(sc.cfg.Daemon.Repos) == 0 && !sc.cfg.Daemon.DiscoverClaudeProjects {
		if !env.Interactive {
			return errInstallNoRepo
		}
		def := ""
		if found, err := claude.Discover("."); err == nil {
			def = found.Root
		}
		ans, err := p.ask("Git checkout to sync", def)
		if err != nil {
			return err
		}
		if ans == "" {
			return errInstallNoRepo
		}
		dirs = []string{ans}
	}
	for _, dir := range dirs {
		root, err := checkoutRoot(dir)
		if err != nil {
			return err
		}
		listed := slices.ContainsFunc(sc.cfg.Daemon.Repos, func(r daemon.RepoConfig) bool { return r.Checkout == root })
		if !listed && !slices.Contains(add.checkouts, root) {
			add.checkouts = append(add.checkouts, root)
		}
	}
	return nil
}

// checkoutRoot is the root of the git checkout at dir, which must have a
// remote the repo slug comes from.
func checkoutRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("checkout: %w", err)
	}
	found, err := claude.Discover(abs)
	if err != nil {
		return "", InputError{fmt.Errorf("--checkout %s: %w", dir, err)}
	}
	return found.Root, nil
}

// composeConfig returns the config with the additions: a new file, or the
// old one as it is with tables appended. A key the old [client] table lacks
// cannot be appended; the user is asked to add it.
func composeConfig(sc existing, add additions, reload string) ([]byte, error) {
	var client, repos strings.Builder
	if add.server != "" {
		fmt.Fprintf(&client, "server = %s\n", tomlString(add.server))
	}
	if add.tokenFile != "" {
		fmt.Fprintf(&client, "token_file = %s\n", tomlString(add.tokenFile))
	}
	if add.allowInsecure {
		client.WriteString("allow_insecure = true\n")
	}
	for _, c := range add.checkouts {
		fmt.Fprintf(&repos, "\n[[daemon.repo]]\ncheckout = %s\n", tomlString(c))
	}
	if client.Len() > 0 && sc.hasClient {
		return nil, InputError{fmt.Errorf("add to the [client] section of %s:\n%s", sc.path, strings.TrimSpace(client.String()))}
	}
	text := bytes.Clone(sc.data)
	if text == nil {
		text = fmt.Appendf(nil, "# teammemd configuration, written by teammemd service install.\n"+
			"# configs/daemon.toml in teammemd shows every key it can hold. After editing it,\n"+
			"# reload the daemon: %s\n", reload)
	} else if len(text) > 0 && text[len(text)-1] != '\n' {
		text = append(text, '\n')
	}
	if client.Len() > 0 {
		text = fmt.Appendf(text, "\n[client]\n%s", client.String())
	}
	text = append(text, repos.String()...)
	if _, err := sc.decode(sc.path, text); err != nil {
		return nil, InputError{fmt.Errorf("cannot add to %s: %w; edit it by hand", sc.path, err)}
	}
	return text, nil
}

// tomlString quotes s as a TOML basic string: JSON's escapes are TOML's.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// conflict refuses a flag that contradicts the config file.
func conflict(path, key, have, flag, want string) error {
	return InputError{fmt.Errorf("%s already sets %s = %q, but %s says %q: edit the file, or pass --config to write a new one",
		path, key, have, flag, want)}
}

// everyRepo reports whether the config lists repos and each satisfies ok.
func everyRepo(cfg Config, ok func(daemon.RepoConfig) bool) bool {
	return len(cfg.Daemon.Repos) > 0 && !slices.ContainsFunc(cfg.Daemon.Repos, func(r daemon.RepoConfig) bool { return !ok(r) })
}

// hasLogin reports whether the daemon the service runs authenticates with
// the login to server: the unit unsets $TEAMMEMD_TOKEN, so with no token
// file of its own that is so when teammemd login keeps one.
func hasLogin(env Env, server string) bool {
	return credential.Rule{Logins: env.Logins}.For(server, "").Kind == credential.Login
}
