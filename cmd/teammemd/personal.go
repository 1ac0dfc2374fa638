package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/login"
	"github.com/teammemd/teammemd/sync/personal"
)

// newPersonalCmd groups the commands of the personal lane.
func newPersonalCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "personal",
		Short: "Sync your private memory to your own machines, end-to-end encrypted",
		Long: `The personal lane syncs your private Claude Code memory (each project's
memory/ directory, without team/) to every machine of yours, encrypted on
the machine before it leaves: the server keeps ciphertext it cannot read,
and neither can its operator. One key opens it; "personal init" makes it on your
first machine and prints a recovery code, "personal join" brings it to
another machine with that code. See docs/13-personal-lane.md.`,
		Example: `  teammemd personal init
  teammemd personal join
  teammemd personal status`,
	}
	cmd.AddCommand(newPersonalInitCmd(d), newPersonalJoinCmd(d), newPersonalStatusCmd(), newPersonalRotateCmd(d))
	return cmd
}

// personalFlags are the flags every personal command takes.
type personalFlags struct {
	client  clientFlags
	config  string
	storage string
}

func (f *personalFlags) register(fs *pflag.FlagSet) {
	f.client.register(fs)
	fs.StringVar(&f.config, "config", "", "config `file` (default $TEAMMEMD_CONFIG, then "+configDir()+"/config.toml)")
	fs.StringVar(&f.storage, "key-storage", "", "where to keep the personal key: `auto` (the OS keyring when it answers, else a 0600 file), keyring or file (default $"+
		envLoginStorage+", then [login] storage, then auto)")
}

// personalEnv is what a personal command works with: the server, a client
// of it with the user's token, and this machine's key store.
type personalEnv struct {
	flags  personalFlags
	cfg    Config
	server string
	client *memsync.Client
	keys   *personal.KeyStore
}

// personalKeyStore is where this machine keeps its personal keys, one
// entry per server: the daemon reads the same.
func personalKeyStore(storage login.Storage) *personal.KeyStore {
	return personal.NewKeyStore(laneKeyDir(), string(storage))
}

// open loads the config and builds the client and key store.
func (f personalFlags) open() (personalEnv, error) {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return personalEnv{}, err
	}
	cc := f.client.resolve(cfg.Client)
	cc.AllowInsecure = cfg.Client.AllowInsecure
	if cc.Server == "" {
		return personalEnv{}, errNoServer
	}
	if err := cc.CheckServer(cc.Server); err != nil {
		return personalEnv{}, configError{err}
	}
	storage, err := loginStorage(f.storage, cfg.Login)
	if err != nil {
		return personalEnv{}, err
	}
	ts, err := newTokenRule(f.client, cfg.Client).For(cc.Server, cc.TokenFile).Source()
	if err != nil {
		return personalEnv{}, err
	}
	c, err := memsync.NewClient(cc.Server, ts, memsync.WithUserAgent("teammemd/"+version))
	if err != nil {
		return personalEnv{}, err
	}
	st := personalKeyStore(storage)
	st.Wait = loginKeyringWait
	return personalEnv{flags: f, cfg: cfg, server: cc.Server, client: c, keys: st}, nil
}

// explainPersonal says what the server's answers of the personal lane mean
// for the user, in place of the server's own words on them, so that it is
// said once; err stays the error unwrapped.
func explainPersonal(err error) error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return err
	}
	var why string
	switch ae.Code {
	case api.CodePersonalDisabled:
		why = "this server does not offer the personal lane; its operator turns it on with [server.personal] enabled = true"
	case api.CodePersonalNotInitialized:
		why = "no personal key on this server yet; run teammemd personal init on your first machine"
	case api.CodePersonalKeyChanged:
		why = personal.ErrRotatedElsewhere.Error()
	case api.CodePersonalQuota:
		why = "your personal lanes are at the server's quota; remove notes you no longer need, or ask its operator for more"
	default:
		return err
	}
	said := *ae
	said.Message = why
	return explained{msg: strings.Replace(err.Error(), ae.Error(), said.Error(), 1), err: err}
}

// explained is an error told in other words than its own.
type explained struct {
	msg string
	err error
}

func (e explained) Error() string { return e.msg }
func (e explained) Unwrap() error { return e.err }

// whatSyncs says, after init or join, what the personal lane syncs.
const whatSyncs = `What syncs: each project's private memory, ~/.claude/projects/<project>/memory/
(not team/, which the team lane syncs), for every project the daemon syncs a
team lane for; with [personal] user_files = true also ~/.claude/CLAUDE.md and
~/.claude/rules/**/*.md. Everything is encrypted here before it is sent; the
server sees sizes and times, not names or content.
`
