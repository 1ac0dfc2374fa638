package service

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/user"
	"strings"

	"github.com/teammemd/teammemd/internal/shell"
)

// prompter asks the user for what is missing, one line at a time.
type prompter struct {
	in     *bufio.Reader
	out    io.Writer
	secret func() (string, error)
}

func newPrompter(m Machine, out io.Writer) *prompter {
	return &prompter{in: bufio.NewReader(m.Stdin), out: out, secret: m.ReadSecret}
}

// ask prints question and returns the answer, trimmed; def when it is
// empty.
func (p *prompter) ask(question, def string) (string, error) {
	if def != "" {
		question += " [" + def + "]"
	}
	fmt.Fprint(p.out, question+": ")
	line, err := p.in.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || line == "") {
		return "", fmt.Errorf("read answer: %w", err)
	}
	if ans := strings.TrimSpace(line); ans != "" {
		return ans, nil
	}
	return def, nil
}

// askSecret prints question and reads an answer that is not echoed.
func (p *prompter) askSecret(question string) (string, error) {
	fmt.Fprint(p.out, question+": ")
	s, err := p.secret()
	fmt.Fprintln(p.out)
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	return strings.TrimSpace(s), nil
}

// userName is the current user's login name, or "$USER" when it is not
// known, for the commands teammemd suggests.
func userName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return shell.Quote(u.Username)
	}
	return "$USER"
}
