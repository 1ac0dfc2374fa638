// Package corpus generates deterministic, realistic team memory notes for
// the scanner's benchmarks: Markdown dense with the words secret rules key
// on (token, key, secret, password, AWS, GitHub, Slack...), UUIDs, hashes,
// URLs and code fences, with a secret planted in a small share of them
// (Note), and plain ones with no secret vocabulary (CleanNote).
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
	return writeNotes(dir, n, func(i int) string { return Note(i, size) })
}

func writeNotes(dir string, n int, note func(int) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("note-%05d.md", i))
		if err := os.WriteFile(name, []byte(note(i)), 0o644); err != nil {
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

var cleanHeadings = []string{
	"Build and test", "Code layout", "Review habits", "Release steps", "Local setup",
	"Error handling", "Logging", "Database migrations", "Frontend conventions", "On-call",
}

var cleanProse = []string{
	"Run make check before pushing; it formats, vets and runs the unit tests in about two minutes.",
	"Handlers live in internal/http and call the service layer; nothing in the service layer imports net/http.",
	"Every migration gets a down step, and the CI job applies both directions on an empty database.",
	"Prefer table-driven tests and name each case after the behaviour it checks, not the input.",
	"Wrap errors with the operation that failed so the log line tells you where to look first.",
	"The release branch is cut on Tuesdays; a fix after the cut goes to main first, then is cherry-picked.",
	"Use the structured logger that is passed in; a message is a constant string and the details are fields.",
	"The frontend builds with the pinned Node version from .nvmrc; run npm ci, never npm install, in CI.",
	"Feature flags are read once per request and default to off; remove a flag within two releases of launch.",
	"Page the secondary only after fifteen minutes without progress on a customer-facing outage.",
	"The staging cluster mirrors production settings except for the replica count and the log level.",
	"Large files go through the upload service, which streams to object storage and never buffers in memory.",
	"Benchmarks run on the shared runner at night; compare medians, since single runs drift by ten percent.",
	"Style fixes go in their own commit so that the review of the behaviour change stays readable.",
	"When a test is flaky, quarantine it with an issue link the same day instead of retrying the job.",
}

var cleanCode = []string{
	"```sh\nmake check\ngo test ./internal/... -run TestOrders -count=1\n```",
	"```go\nif err := store.Save(ctx, order); err != nil {\n\treturn fmt.Errorf(\"save order %d: %w\", order.ID, err)\n}\n```",
	"```sql\nALTER TABLE orders ADD COLUMN shipped_at timestamptz;\nCREATE INDEX orders_shipped_at ON orders (shipped_at);\n```",
	"```yaml\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make check\n```",
}

// CleanNote returns the deterministic note number i, about size bytes
// long, of the kind most team memory is: build habits, layout and review
// conventions, with none of the secret vocabulary Note is dense with and
// never a secret.
func CleanNote(i, size int) string {
	rng := rand.New(rand.NewPCG(uint64(i), 0xc1ea))
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (%d)\n\n", cleanHeadings[rng.IntN(len(cleanHeadings))], i)
	for b.Len() < size-200 {
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "## %s\n\n", cleanHeadings[rng.IntN(len(cleanHeadings))])
		case 1:
			b.WriteString(cleanCode[rng.IntN(len(cleanCode))] + "\n\n")
		default:
			b.WriteString(cleanProse[rng.IntN(len(cleanProse))] + "\n")
		}
	}
	return b.String()
}

// WriteCleanDir writes clean notes 0..n-1 as note-NNNNN.md into dir.
func WriteCleanDir(dir string, n, size int) error {
	return writeNotes(dir, n, func(i int) string { return CleanNote(i, size) })
}
