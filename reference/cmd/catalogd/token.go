package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

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
		expired                      bool
	)
	c.register(fs)
	// The token must be one the running service accepts: its database, and
	// so its signing key, never a new one.
	c.existing = true
	fs.StringVar(&actor, "actor", reference.RootUser.String(), "URN of the user the token acts as")
	fs.StringVar(&name, "name", "", "name of the token (required)")
	fs.StringVar(&descr, "description", "", "description of the token")
	fs.StringVar(&duration, "duration", reference.DurationOneDay, "one of "+strings.Join(durationNames, ", "))
	fs.BoolVar(&expired, "expired", false, "mint a ONE_HOUR token that expired an hour ago, for checking that expired tokens are refused (catalogspec audit's CATALOGSPEC_EXPIRED_TOKEN)")
	about := "Mints a personal access token against the service's database and prints it once, alone on stdout."
	if err := parse(fs, args, about, "\nEnvironment: as catalogd serve (see catalogd serve -h); DATABASE_URL names the database.", stdout, stderr); err != nil {
		return err
	}
	// Every flag is checked before any database is looked for.
	if name == "" {
		return errors.New("token create: --name is required")
	}
	if _, err := reference.TokenLifetime(duration); err != nil {
		return fmt.Errorf("token create: unknown --duration %q: use one of %s", duration, strings.Join(durationNames, ", "))
	}
	if err := checkLogLevel(c.logLevel); err != nil {
		return err
	}
	if expired {
		if duration != reference.DurationOneDay && duration != reference.DurationOneHour {
			return errors.New("token create: --expired mints a ONE_HOUR token; leave --duration out")
		}
		duration, c.behind = reference.DurationOneHour, 2*time.Hour
	}
	if u, err := reference.ParseURN(actor); err != nil || u.EntityType != reference.EntityCorpUser {
		return fmt.Errorf("token create: --actor %q is not a user URN such as urn:li:corpuser:datahub", actor)
	}
	b, logger, err := open(ctx, c, getenv, stderr, stderr, false)
	if err != nil {
		return err
	}
	defer b.close()
	raw, info, err := b.svc.MintAccessToken(ctx, reference.CreateAccessTokenInput{ActorURN: actor, Name: name, Description: descr, Duration: duration})
	if err != nil {
		if reference.ErrorCodeOf(err) == reference.EINTERNAL || reference.ErrorCodeOf(err) == reference.EUNAVAILABLE {
			// The operator's own terminal: the cause, not a client's message.
			return fmt.Errorf("token create: %w", err)
		}
		return fmt.Errorf("token create: %s", reference.ErrorMessageOf(err))
	}
	logger.Info("access token created", "id", info.ID, "actor", info.ActorURN, "name", info.Name)
	fmt.Fprintln(stdout, raw)
	return nil
}

// durationNames are the --duration values, shortest first.
var durationNames = []string{
	reference.DurationOneHour, reference.DurationOneDay, reference.DurationOneWeek, reference.DurationOneMonth,
	reference.DurationThreeMonths, reference.DurationSixMonths, reference.DurationOneYear, reference.DurationNoExpiry,
}
