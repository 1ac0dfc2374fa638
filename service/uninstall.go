package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// Uninstall stops and disables the service and removes its unit; the
// config, the token file and the state stay. With dry it prints every
// command and removal instead.
func Uninstall(ctx context.Context, env Env, dry bool, stdout io.Writer) error {
	plan, _, err := here(env)
	if err != nil {
		return err
	}
	if _, err := os.Stat(plan.Unit.Path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "teammemd service is not installed (no %s); nothing to do\n", plan.Unit.Path)
		return nil
	}
	if err := runCommands(ctx, env, plan.Uninstall, dry, stdout); err != nil {
		return err
	}
	if dry {
		fmt.Fprintf(stdout, "would remove %s\n", plan.Unit.Path)
	} else if err := os.Remove(plan.Unit.Path); err != nil {
		return fmt.Errorf("remove the unit: %w", err)
	} else {
		fmt.Fprintf(stdout, "removed %s\n", plan.Unit.Path)
	}
	if err := runCommands(ctx, env, plan.AfterUninstall, dry, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "kept the config, the token file and the state in %s and %s\n", env.Dirs.Config, env.Dirs.State)
	return nil
}
