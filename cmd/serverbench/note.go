package main

import (
	"fmt"
	"strings"
)

// notePara is a paragraph of a note as a team writes them: commands, paths
// and the words the secret scan's rules look for ("token", "password",
// "key"), without a secret.
const notePara = "## Release checklist\n\n" +
	"Cut the release from main after CI is green: `make release VERSION=x.y.z`, then watch the " +
	"canary dashboard for ten minutes before promoting. The deploy token for staging comes from " +
	"the vault (`vault read -field=token secret/ci/staging`); never paste a password or an access " +
	"key into a note, the server refuses them. Database migrations run from ops/migrate.sh and " +
	"must be reversible; the API key rotation is documented in docs/keys.md.\n\n"

// noteText is size bytes of note text from client, different for each
// of its PUTs (n).
func noteText(client, n, size int) string {
	var b strings.Builder
	b.Grow(size + len(notePara))
	fmt.Fprintf(&b, "# Notes of client %d, revision %d\n\n", client, n)
	for b.Len() < size {
		b.WriteString(notePara)
	}
	return b.String()[:size]
}
