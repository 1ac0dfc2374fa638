// Package corpus generates deterministic, realistic team memory notes for
// the scanner's benchmarks: Markdown dense with the words secret rules key
// on (token, key, secret, password, AWS, GitHub, Slack...), UUIDs, hashes,
// URLs and code fences, with a secret planted in a small share of them.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

var headings = []string{
	"Deploy notes", "Auth service", "Token rotation", "API keys policy", "Secrets handling",
	"Database access", "CI pipeline", "Slack bot", "Stripe webhooks", "AWS accounts",
}

var prose = []string{
	"The API key for staging lives in Vault under kv/staging/api; never paste the token into a note.",
	"Rotate the GitHub token every 90 days; the secret name in CI is GITHUB_TOKEN and the owner is platform.",
	"Use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY from the SSO session, not a long-lived access key.",
	"The Slack webhook URL is stored as SLACK_WEBHOOK_URL in the deploy environment; ask #infra for access.",
	"Stripe keys: the publishable key is fine in the client, the secret key stays in the payments service.",
	"Password resets go through the auth service; the bearer token expires after 15 minutes.",
	"The JWT signing key is loaded from KMS at boot; see the auth README for the key id and rotation.",
	"Our npm token for publishing is scoped to the @acme org and kept in 1Password, vault 'Engineering'.",
	"When the Heroku API key expires the deploy job fails with 401; regenerate it from the team account.",
	"Database password comes from the DATABASE_URL secret; local dev uses postgres/postgres on port 5432.",
	"The OAuth client secret for Google sign-in is per environment; the client id is public.",
	"Sentry DSN and Datadog API key are injected by the platform; do not hardcode either in config files.",
	"Twilio auth token and account SID live in the notifications service secret store.",
	"For the Azure storage key use the managed identity instead; the connection string is deprecated.",
	"GitLab CI uses a project access token with read_registry scope only; the token name is ci-pull.",
}

var code = []string{
	"```sh\nexport API_TOKEN=$(vault kv get -field=token secret/ci/api)\ncurl -H \"Authorization: Bearer $API_TOKEN\" https://api.example.com/v1/status\n```",
	"```yaml\nenv:\n  AWS_REGION: eu-west-1\n  AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n```",
	"```go\ntoken := os.Getenv(\"SLACK_BOT_TOKEN\")\nif token == \"\" {\n\treturn errors.New(\"missing slack token\")\n}\n```",
	"```ini\n[database]\nhost = db.internal\nuser = app\npassword = ${DB_PASSWORD}\n```",
	"```json\n{\"apiKey\": \"<set in env>\", \"secretRef\": \"payments/stripe\", \"timeoutMs\": 3000}\n```",
}

// Note returns the deterministic note number i, about size bytes long.
// Every 100th note carries one planted secret.
func Note(i, size int) string {
	rng := rand.New(rand.NewPCG(uint64(i), 0x7e4d))
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (%d)\n\n", headings[rng.IntN(len(headings))], i)
	for b.Len() < size-200 {
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "## %s\n\n", headings[rng.IntN(len(headings))])
		case 1:
			b.WriteString(code[rng.IntN(len(code))] + "\n\n")
		case 2:
			fmt.Fprintf(&b, "- request id %s, commit %s, see https://ci.example.com/runs/%d\n",
				uuid(rng), hexString(rng, 40), rng.IntN(100000))
		default:
			b.WriteString(prose[rng.IntN(len(prose))] + "\n")
		}
	}
	if i%100 == 0 {
		fmt.Fprintf(&b, "\nTemporary deploy key: %s\n", PlantedSecret(i))
	}
	return b.String()
}

// PlantedSecret is the secret planted in note i: an AWS access key id
// assembled at run time, so this source holds no secret.
func PlantedSecret(i int) string {
	rng := rand.New(rand.NewPCG(uint64(i), 0xa115))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var b strings.Builder
	b.WriteString("AK" + "IA")
	for range 16 {
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// WriteDir writes notes 0..n-1 as note-NNNNN.md into dir.
func WriteDir(dir string, n, size int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("note-%05d.md", i))
		if err := os.WriteFile(name, []byte(Note(i, size)), 0o644); err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
	}
	return nil
}

func uuid(rng *rand.Rand) string {
	h := hexString(rng, 32)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func hexString(rng *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[rng.IntN(16)]
	}
	return string(b)
}
