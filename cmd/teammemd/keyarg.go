package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/teammemd/teammemd/server/api"
)

// keyArg checks the KEY argument of show, diff, restore and history
// before anything is fetched: an empty key would name the whole repo, and
// one the protocol refuses is the command line's fault, not the server's.
func keyArg(key string) error {
	if key == "" {
		return usageError{errors.New("KEY is empty: name a note, e.g. notes/deploy.md")}
	}
	if err := api.ValidateKey(key, api.Limits{}); err != nil {
		msg := err.Error()
		var ae *api.Error
		if errors.As(err, &ae) {
			msg = ae.Message
		}
		return usageError{fmt.Errorf("KEY %q: %s", key, msg)}
	}
	return nil
}

// keyVersionArg parses and checks a KEY[@VERSION] argument.
func keyVersionArg(arg string) (string, int64, error) {
	key, version, err := splitVersion(arg)
	if err != nil {
		return "", 0, usageError{err}
	}
	return key, version, keyArg(key)
}

// splitVersion splits KEY@VERSION; a key without "@" is the newest
// revision (version 0). An "@" is part of the key when what follows it is
// no number and the whole argument names a note, as notes/me@home.md.
func splitVersion(arg string) (string, int64, error) {
	i := strings.LastIndexByte(arg, '@')
	if i < 0 {
		return arg, 0, nil
	}
	v, err := strconv.ParseInt(arg[i+1:], 10, 64)
	switch {
	case err == nil && v >= 1:
		return arg[:i], v, nil
	case err != nil && api.IsSyncableKey(arg):
		return arg, 0, nil
	}
	return "", 0, fmt.Errorf("%s: the version after @ is %q, want a positive number as teammemd history lists it", arg, arg[i+1:])
}
