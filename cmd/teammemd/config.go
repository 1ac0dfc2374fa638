package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/login"
	"github.com/teammemd/teammemd/sync/personal"
)

// Config is the one configuration file of teammemd, TOML, decoded strictly:
// a key it does not know is an error. Each part owns its section. Precedence
// is flags > environment > file.
type Config struct {
	Server server.Config        `toml:"server"`
	Daemon daemon.Config        `toml:"daemon"`
	Client memsync.ClientConfig `toml:"client"`
	Scan   scan.Config          `toml:"scan"`
	Login  login.Config         `toml:"login"`
	// Personal is the daemon's personal lanes.
	Personal personal.Config `toml:"personal"`
}

// Validate checks every section.
func (c *Config) Validate() error {
	_, err := c.validate()
	return err
}

// validateConfig validates c: the check of a config loaded from a file.
func validateConfig(c Config) error { return c.Validate() }

// validate checks every section once and returns the [server] section as
// the settings a server is built from.
func (c *Config) validate() (server.Settings, error) {
	settings, err := c.Server.Settings()
	if err != nil {
		return settings, fmt.Errorf("[server]: %w", err)
	}
	if err := c.Daemon.Validate(); err != nil {
		return settings, fmt.Errorf("[daemon]: %w", err)
	}
	if err := c.Client.Validate(); err != nil {
		return settings, fmt.Errorf("[client]: %w", err)
	}
	if err := c.Scan.Validate(); err != nil {
		return settings, fmt.Errorf("[scan]: %w", err)
	}
	if err := c.Login.Validate(); err != nil {
		return settings, fmt.Errorf("[login]: %w", err)
	}
	return settings, nil
}

// loadConfig reads the config file at path and validates it. An empty
// path means $TEAMMEMD_CONFIG, then $XDG_CONFIG_HOME/teammemd/config.toml if
// it exists; with neither, the defaults apply.
func loadConfig(path string) (Config, error) {
	cfg, read, err := readConfig(path)
	if err != nil {
		return cfg, configError{err}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, configError{inConfig(read.path, read.lines(err, validateConfig))}
	}
	return cfg, nil
}

// configFile is the config file a command read: its path, "" when there
// was none, and its text.
type configFile struct {
	path string
	data []byte
}

// lines names in err, check's error for the config the file holds, the
// line of the file that sets each value it is about.
func (f configFile) lines(err error, check func(Config) error) error {
	if f.path == "" {
		return err
	}
	return withKeyLines(string(f.data), err, check)
}

// readConfig decodes the config file at path, found as loadConfig finds
// it, without validating it. It returns the file it read, whose path is
// empty when there was none.
func readConfig(path string) (Config, configFile, error) {
	explicit := path != ""
	if !explicit {
		path = os.Getenv("TEAMMEMD_CONFIG")
		explicit = path != ""
	}
	if !explicit {
		path = filepath.Join(configDir(), "config.toml")
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return Config{}, configFile{}, nil
	}
	if err != nil {
		return Config{}, configFile{}, fmt.Errorf("read config: %w", err)
	}
	cfg, err := decodeFile(path, data)
	return cfg, configFile{path: path, data: data}, err
}

// inConfig says that err is about the config file at path, if there is one.
func inConfig(path string, err error) error {
	if path == "" {
		return err
	}
	return fmt.Errorf("config %s: %w", path, err)
}

// decodeConfig decodes and validates the config file at path, read as data.
func decodeConfig(path string, data []byte) (Config, error) {
	cfg, err := decodeFile(path, data)
	if err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, inConfig(path, withKeyLines(string(data), err, validateConfig))
	}
	return cfg, nil
}

// decodeFile decodes the config file at path, read as data, strictly: a
// key it does not know is an error.
func decodeFile(path string, data []byte) (Config, error) {
	var cfg Config
	if err := checkDurationForms(string(data)); err != nil {
		return cfg, inConfig(path, err)
	}
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return cfg, inConfig(path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return cfg, inConfig(path, unknownKeysError(string(data), undecoded))
	}
	cfg.Scan.GitleaksConfig = besideConfig(path, cfg.Scan.GitleaksConfig)
	return cfg, nil
}

// besideConfig is file, a path the config file at path names, taken
// relative to the config file's directory when it is not absolute: the
// same file whatever directory a command, or the service, runs in.
func besideConfig(path, file string) string {
	if file == "" || filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(filepath.Dir(path), file)
}

// xdgDir returns $env when it is an absolute path, else $HOME/fallback.
func xdgDir(env, fallback string) string {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, fallback)
}

// configDir is where teammemd looks for config.toml.
func configDir() string { return filepath.Join(xdgDir("XDG_CONFIG_HOME", ".config"), "teammemd") }

// dataDir is where the server keeps its database by default.
func dataDir() string { return filepath.Join(xdgDir("XDG_DATA_HOME", ".local/share"), "teammemd") }

// stateDir is where the sync engine keeps per-repo state and conflict copies.
func stateDir() string { return filepath.Join(xdgDir("XDG_STATE_HOME", ".local/state"), "teammemd") }

// runtimeDir is where the daemon puts its control socket.
func runtimeDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "teammemd")
	}
	return filepath.Join(stateDir(), "run")
}
