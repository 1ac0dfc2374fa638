package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/login"
)

// loginTimeout bounds a whole device login, the wait for approval included.
const loginTimeout = 15 * time.Minute

// loginClock judges when a login needs refreshing.
var loginClock = time.Now

// envLoginStorage overrides [login] storage.
const envLoginStorage = "TEAMMEMD_LOGIN_STORAGE"

// loginKeyringWait bounds a keyring call of login and logout, which may
// have to wait for the person to unlock the keyring.
const loginKeyringWait = 2 * time.Minute

// loginStore is where logins are kept: one 0600 file per server, its
// tokens in the OS keyring when the login was kept there. storage decides
// where a new login goes; the store of processes that only use logins
// leaves it empty.
func loginStore(storage login.Storage) login.Store {
	return login.Store{Dir: filepath.Join(configDir(), "logins"), Storage: storage, Keyring: login.OSKeyring}
}

// loginPath is the login file of server.
func loginPath(server string) (string, error) { return loginStore("").Path(server) }

// loginStorage picks where a new login goes: the flag, else
// $TEAMMEMD_LOGIN_STORAGE, else [login] storage, else auto.
func loginStorage(flagValue string, cfg login.Config) (login.Storage, error) {
	st, err := login.ParseStorage(cmp.Or(flagValue, os.Getenv(envLoginStorage), cfg.Storage))
	if err != nil {
		return "", usageError{err}
	}
	return st, nil
}

// loginHTTPClient calls the server's discovery and the identity provider.
func loginHTTPClient() *http.Client { return &http.Client{Timeout: 30 * time.Second} }

// loginFlags are the flags login and logout share.
type loginFlags struct{ server, config string }

// storageFlag is login's --storage.
func storageFlag(fs *pflag.FlagSet) *string {
	return fs.String("storage", "", "where to keep the login: `auto` (the OS keyring when it answers, else a 0600 file), keyring or file (default $"+envLoginStorage+", then [login] storage, then auto)")
}

func (f *loginFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.server, "server", "", "server `URL` (default $"+envServer+", then [client] server)")
	fs.StringVar(&f.config, "config", "", "config `file` (default $TEAMMEMD_CONFIG, then $XDG_CONFIG_HOME/teammemd/config.toml)")
}

// resolve loads the config and picks the server.
func (f loginFlags) resolve() (Config, string, error) {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return cfg, "", err
	}
	server := cmp.Or(f.server, os.Getenv(envServer), cfg.Client.Server)
	if server == "" {
		return cfg, "", errNoServer
	}
	if err := memsync.ValidateServerURL(server); err != nil {
		return cfg, "", usageError{err}
	}
	return cfg, server, nil
}

// newLoginCmd logs in to a server with the device authorization grant against
// the identity provider its discovery document or [login] names, and keeps
// the login for sync and run.
func newLoginCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Log in to a server with your organisation's identity",
		Long: `Log in to a server with your organisation's identity: the device
authorization grant against the identity provider the server's discovery
document (or [login]) names. You confirm a code in a browser, on any device;
the login is kept for sync and run, in the OS keyring or a 0600 file, and
refreshed before it expires.`,
		Example: `  teammemd login --server https://teammemd.example.com
  teammemd login --storage file`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	var f loginFlags
	f.register(fs)
	storageValue := storageFlag(fs)
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		cfg, server, err := f.resolve()
		if err != nil {
			return err
		}
		storage, err := loginStorage(*storageValue, cfg.Login)
		if err != nil {
			return err
		}
		st := loginStore(storage)
		st.Wait = loginKeyringWait
		if storage == login.StorageKeyring {
			if err := st.CheckKeyring(server); err != nil {
				return err
			}
		}
		ctx, cancel := context.WithTimeout(ctx, loginTimeout)
		defer cancel()
		client := loginHTTPClient()
		d, err := login.Discover(ctx, client, server)
		if err != nil {
			return err
		}
		provider, err := login.Provider(ctx, client, server, d, cfg.Login)
		if err != nil {
			return err
		}
		rec, err := login.Device(ctx, client, server, provider, stdout, loginClock)
		if err != nil {
			return err
		}
		where, err := st.Keep(ctx, rec)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Logged in to %s as %s. %s, and refreshed before it expires.\n", server, api.Printable(cmp.Or(rec.Who, "you")), keptWhere(where))
		if email := rec.UnvouchedEmail(); email != "" {
			fmt.Fprintf(stdout, "Your identity provider does not vouch for the email %s (email_verified), so the server knows you by your subject id and no email: grant matches you.\n", api.Printable(email))
		}
		if os.Getenv(envToken) != "" {
			fmt.Fprintln(stderr, "teammemd: note: "+envToken+" is set and wins over this login")
		}
		return nil
	})
	return cmd
}

// newLogoutCmd forgets the login to a server, revoking it at the identity
// provider when the provider can revoke.
func newLogoutCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "logout",
		Short:   "Forget the login to a server",
		Long:    "Forget the login to a server, revoking it at the identity provider when the provider can revoke.",
		Example: "  teammemd logout --server https://teammemd.example.com",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	var f loginFlags
	f.register(fs)
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		_, server, err := f.resolve()
		if err != nil {
			return err
		}
		st := loginStore("")
		st.Wait = loginKeyringWait
		rec, err := st.Load(server)
		if errors.Is(err, login.ErrNotLoggedIn) {
			fmt.Fprintf(stdout, "Not logged in to %s.\n", server)
			return nil
		}
		if err == nil {
			if rerr := login.Revoke(ctx, loginHTTPClient(), rec); rerr != nil {
				fmt.Fprintf(stderr, "teammemd: the identity provider did not revoke the login (%v); it is removed here all the same\n", rerr)
			}
		}
		if _, err := st.Remove(ctx, server); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Logged out of %s.\n", server)
		return nil
	})
	return cmd
}

// keptWhere says where a login was kept.
func keptWhere(w login.Where) string {
	switch {
	case w.Keyring:
		return "Its tokens are kept in the OS keyring (" + w.Path + " says so)"
	case w.Fallback != nil:
		return "The OS keyring did not take it (" + w.Fallback.Error() + "), so it is kept in " + w.Path + " (mode 0600)"
	}
	return "It is kept in " + w.Path + " (mode 0600)"
}

// loginKept says ", tokens in the OS keyring" for a login kept there.
func loginKept(server string) string {
	if loginStore("").InKeyring(server) {
		return ", tokens in the OS keyring"
	}
	return ""
}
