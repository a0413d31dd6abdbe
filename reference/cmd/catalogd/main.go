// Command catalogd is the reference metadata service: a GraphQL and REST
// metadata service (GMS) and a frontend that proxies to it, over Postgres.
//
//	catalogd serve          run both tiers
//	catalogd token create   mint a personal access token against the database
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogd:", err)
		os.Exit(1)
	}
}
