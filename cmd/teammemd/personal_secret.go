package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// secretInput is where a command reads a recovery code or passphrase: the
// terminal, without echo, or stdin.
type secretInput struct {
	stdin io.Reader
	// tty is set when stdin is a terminal.
	tty bool
	// readHidden reads a line from the terminal without echo.
	readHidden func() (string, error)
}

// realSecretInput is this process's stdin.
func realSecretInput() secretInput {
	fd := int(os.Stdin.Fd())
	return secretInput{stdin: os.Stdin, tty: term.IsTerminal(fd), readHidden: func() (string, error) {
		b, err := term.ReadPassword(fd)
		return string(b), err
	}}
}

// minPassphrase is the shortest passphrase init and rotate-key take: it
// is all that stands between the server's operator and the key.
const minPassphrase = 12

// line reads one line of stdin, trimmed.
func (in secretInput) line(what string) (string, error) {
	s, err := bufio.NewReader(io.LimitReader(in.stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the %s from stdin: %w", what, err)
	}
	s = strings.TrimRight(s, "\r\n")
	if strings.TrimSpace(s) == "" {
		return "", usageError{fmt.Errorf("no %s on stdin", what)}
	}
	return s, nil
}

// ask reads what from the terminal without echo when stdin is one and
// fromStdin is not set, else one line of stdin.
func (in secretInput) ask(what string, fromStdin bool, prompt io.Writer) (string, error) {
	if fromStdin || !in.tty {
		return in.line(what)
	}
	fmt.Fprintf(prompt, "Enter your %s (not shown): ", what)
	s, err := in.readHidden()
	fmt.Fprintln(prompt)
	if err != nil {
		return "", fmt.Errorf("read the %s: %w", what, err)
	}
	if strings.TrimSpace(s) == "" {
		return "", usageError{fmt.Errorf("no %s given", what)}
	}
	return s, nil
}

// passphrase reads a new passphrase from stdin and checks its length.
func (in secretInput) passphrase() (string, error) {
	s, err := in.line("passphrase")
	if err != nil {
		return "", err
	}
	if len([]rune(s)) < minPassphrase {
		return "", usageError{fmt.Errorf("the passphrase is %d characters; use at least %d, or leave out --passphrase-stdin for a recovery code", len([]rune(s)), minPassphrase)}
	}
	return s, nil
}
