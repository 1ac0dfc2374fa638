package main

import (
	"context"
	"io"

	"github.com/teammemd/teammemd/service"
)

// The tests run a command the way main does, through runWith, with parts
// of this machine replaced.

func runDaemon(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWith(ctx, realDeps(), append([]string{"run"}, args...), stdout, stderr)
}

func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWith(ctx, realDeps(), append([]string{"status"}, args...), stdout, stderr)
}

func runDoctorWith(ctx context.Context, env doctorEnv, args []string, stdout, stderr io.Writer) error {
	d := realDeps()
	d.doctorEnv = func() doctorEnv { return env }
	return runWith(ctx, d, append([]string{"doctor"}, args...), stdout, stderr)
}

func runServiceWith(ctx context.Context, newEnv func() (service.Machine, error), args []string, stdout, stderr io.Writer) error {
	d := realDeps()
	d.machine = newEnv
	return runWith(ctx, d, append([]string{"service"}, args...), stdout, stderr)
}

func runSetupWith(ctx context.Context, newEnv func() (service.Machine, error), args []string, stdout, stderr io.Writer) error {
	d := realDeps()
	d.machine = newEnv
	return runWith(ctx, d, append([]string{"setup"}, args...), stdout, stderr)
}
