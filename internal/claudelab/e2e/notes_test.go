package e2e

import (
	"crypto/rand"
	"path/filepath"

	"github.com/teammemd/teammemd/internal/claudelab"
	"github.com/teammemd/teammemd/scan/scantest"
)

// The files of the two team notes alice's model writes.
const (
	noteName   = "build-command.md"
	secretName = "deploy-keys.md"
)

// notes are the two team notes alice's model writes, with words unique to
// the run.
type notes struct {
	// description is the description of the note that syncs, body a word
	// of its text.
	description, body string
	// secret is the AWS access key in the other note, which the daemon
	// holds back, and secretDescription that note's description.
	secret, secretDescription string
}

func newNotes() notes {
	return notes{
		description:       "tmde2e-" + rand.Text()[:12],
		body:              "tmdbody-" + rand.Text()[:12],
		secret:            scantest.AWSKey(),
		secretDescription: "tmdsecret-" + rand.Text()[:12],
	}
}

// frontmatter is a team note as Claude Code writes one: a name, a
// description and a type, then the text.
func frontmatter(name, description, text string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\nmetadata:\n  type: project\n---\n" + text
}

// note is the note that syncs.
func (n notes) note() string {
	return frontmatter("Build command", n.description+" how to build", "Build with `make`; "+n.body+".\n")
}

// secretNote is the note with the AWS key.
func (n notes) secretNote() string {
	return frontmatter("Deploy keys", n.secretDescription+" deploy credentials", scantest.AWSNote(n.secret))
}

// The ids the fake gives alice's two calls of the Write tool.
const (
	noteCall   = "toolu_01"
	secretCall = "toolu_02"
)

// aliceScript has alice's model write both notes into her team directory
// with the client's Write tool.
func (n notes) aliceScript(team string) claudelab.Script {
	write := func(file, content string) claudelab.ToolCall {
		return claudelab.ToolCall{Name: "Write", Input: map[string]string{"file_path": filepath.Join(team, file), "content": content}}
	}
	return claudelab.Script{
		Calls: []claudelab.ToolCall{write(noteName, n.note()), write(secretName, n.secretNote())},
		Text:  "Saved the team notes.",
	}
}

// bobScript has bob's model read the README, so that the turn goes on
// while the client recalls memories; on the stores route its first reply
// waits for the recall query.
func bobScript(checkout string, r route) claudelab.Script {
	return claudelab.Script{
		Calls:       []claudelab.ToolCall{{Name: "Read", Input: map[string]string{"file_path": filepath.Join(checkout, "README.md")}}},
		Text:        "The team builds with make.",
		AwaitRecall: r == storesRoute,
	}
}
