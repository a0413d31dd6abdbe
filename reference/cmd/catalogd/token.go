package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/catalogspec/catalogspec/reference"
)

// tokenCreate mints a personal access token directly against the database and
// prints it once: the way to a first token when auth is on.
func tokenCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("catalogd token create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		c                            common
		actor, name, duration, descr string
	)
	c.register(fs)
	fs.StringVar(&actor, "actor", reference.RootUser.String(), "URN of the user the token acts as")
	fs.StringVar(&name, "name", "", "name of the token (required)")
	fs.StringVar(&descr, "description", "", "description of the token")
	fs.StringVar(&duration, "duration", reference.DurationOneDay, "ONE_HOUR, ONE_DAY, ONE_WEEK, ONE_MONTH, THREE_MONTHS, SIX_MONTHS, ONE_YEAR or NO_EXPIRY")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if name == "" {
		return errors.New("token create: --name is required")
	}
	b, logger, err := open(ctx, c, getenv, stderr, stderr)
	if err != nil {
		return err
	}
	defer b.close()
	raw, info, err := b.svc.MintAccessToken(ctx, reference.CreateAccessTokenInput{ActorURN: actor, Name: name, Description: descr, Duration: duration})
	if err != nil {
		return fmt.Errorf("token create: %s", reference.ErrorMessageOf(err))
	}
	logger.Info("access token created", "id", info.ID, "actor", info.ActorURN, "name", info.Name)
	fmt.Fprintln(stdout, raw)
	return nil
}
