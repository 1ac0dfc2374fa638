package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/server/api"
)

// Store is the team server's memory as one admitted caller may see and
// change it: a *server.Caller. Every method checks the caller's grants;
// a repo it may not read answers as one that does not exist.
type Store interface {
	// Subject names the caller.
	Subject() string
	// Repos lists the repos the caller may read.
	Repos(ctx context.Context) ([]string, error)
	// Readable reports, as an error, that the caller may not read repo.
	Readable(ctx context.Context, repo string) error
	// Notes returns repo's entries, as a full GET does.
	Notes(ctx context.Context, repo string) (api.FullResponse, error)
	// Changed returns a channel closed once repo may have changed after
	// the call, and the function that stops listening.
	Changed(repo string) (<-chan struct{}, func())
	// Write applies req on the condition that the repo's checksum is
	// ifMatch, through the checks of a PUT.
	Write(ctx context.Context, repo string, req api.PutRequest, ifMatch string) (api.PutResponse, error)
	// History lists key's revisions, newest first.
	History(ctx context.Context, repo, key string, limit int, content bool) (api.HistoryResponse, error)
}

// RemoteOptions are the parts a Remote uses.
type RemoteOptions struct {
	// Caller returns the store of the caller a request was admitted for;
	// false for a request that was not.
	Caller func(r *http.Request) (Store, bool)
	// Logger receives the log (default: discarded).
	Logger *slog.Logger
	// Version is reported to clients.
	Version string
}

// Remote serves the tools over streamable HTTP on the team's server, on
// the repos the caller may read. It keeps an index of each repo used,
// read again once the repo changes.
type Remote struct {
	handler http.Handler
	caller  func(r *http.Request) (Store, bool)
	cache   *repoCache
}

// storeKey is where the caller's store rides in a request's token info.
const storeKey = "teammemd.store"

// NewRemote returns the MCP endpoint of the team's server.
func NewRemote(opts RemoteOptions) (*Remote, error) {
	if opts.Caller == nil {
		return nil, errors.New("mcpserver: RemoteOptions.Caller is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Remote{caller: opts.Caller, cache: newRepoCache(maxCachedRepos)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "teammemd", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: remoteInstructions,
		Logger:       opts.Logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	if err := addTools(srv, r, time.Now, ""); err != nil { // Put refuses a note of type user
		return nil, err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opts.Logger})
	r.handler = auth.RequireBearerToken(r.verify, nil)(h)
	return r, nil
}

// remoteInstructions tell the client what the endpoint is for.
const remoteInstructions = "The team memory on the team's teammemd server: Markdown notes shared by every agent of the team, per repo. " +
	"Search and read them before work; write what the team should know. Name the repo in each call; a call without one names the repos you can read. " +
	"Every write needs the sha256 of the version read (none for a new note); a note holding a secret is refused."

// Handler serves the endpoint, for requests the server has admitted.
func (r *Remote) Handler() http.Handler { return r.handler }

// tokenLife is how long the SDK holds a request's token info valid; the
// server judged the credential for this request already.
const tokenLife = time.Minute

// verify hands the admitted caller on to the tools; a request the server
// did not admit is refused.
func (r *Remote) verify(_ context.Context, _ string, req *http.Request) (*auth.TokenInfo, error) {
	st, ok := r.caller(req)
	if !ok {
		return nil, fmt.Errorf("request not admitted: %w", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{UserID: st.Subject(), Expiration: time.Now().Add(tokenLife), Extra: map[string]any{storeKey: st}}, nil
}

// Space returns repo's notes as the call's caller may see them; with no
// repo, the one repo it may read.
func (r *Remote) Space(ctx context.Context, req *mcp.CallToolRequest, repo string) (Space, error) {
	st, ok := storeOf(req)
	if !ok {
		return nil, errors.New("the call carries no admitted caller")
	}
	if repo == "" {
		var err error
		if repo, err = onlyRepo(ctx, st); err != nil {
			return nil, err
		}
	}
	if err := st.Readable(ctx, repo); err != nil {
		return nil, remoteError(err)
	}
	snap, err := r.cache.current(ctx, st, repo, false)
	if err != nil {
		return nil, remoteError(err)
	}
	return &remoteSpace{st: st, cache: r.cache, snap: snap}, nil
}

// storeOf is the caller's store in req's token info.
func storeOf(req *mcp.CallToolRequest) (Store, bool) {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil, false
	}
	st, ok := req.Extra.TokenInfo.Extra[storeKey].(Store)
	return st, ok
}

// onlyRepo is the one repo st may read, or an error that lists them.
func onlyRepo(ctx context.Context, st Store) (string, error) {
	repos, err := st.Repos(ctx)
	switch {
	case err != nil:
		return "", remoteError(err)
	case len(repos) == 1:
		return repos[0], nil
	case len(repos) == 0:
		return "", errors.New("name the repo: this credential can read no repo that holds notes yet")
	}
	return "", fmt.Errorf("name the repo: this credential can read %s", strings.Join(repos, ", "))
}
