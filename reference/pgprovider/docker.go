package pgprovider

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// dockerPingTimeout bounds the ping of a Docker engine that looks present.
const dockerPingTimeout = 2 * time.Second

// containerStartTimeout bounds starting the PostgreSQL container (image pull
// included).
const containerStartTimeout = 3 * time.Minute

// dockerAvailable reports (as a nil error) whether a Docker engine answers.
// It first looks, without any I/O beyond stat, for a sign of an engine:
// DOCKER_HOST, a testcontainers properties file naming a host, or a Docker
// socket at one of the usual places. Only when one is found does it ping the
// engine through testcontainers, bounded by dockerPingTimeout. It never
// panics and returns within about dockerPingTimeout.
func dockerAvailable(ctx context.Context, getenv func(string) string) error {
	where, ok := dockerHint(getenv)
	if !ok {
		return errors.New("no Docker engine: DOCKER_HOST is unset and no Docker socket was found")
	}
	return pingDocker(ctx, where)
}

// dockerHint returns a description of where an engine might be, and whether
// there is any sign of one at all.
func dockerHint(getenv func(string) string) (string, bool) {
	if h := getenv("DOCKER_HOST"); h != "" {
		if u, err := url.Parse(h); err == nil && u.Scheme == "unix" {
			if _, err := os.Stat(u.Path); err != nil {
				return "", false
			}
		}
		return "DOCKER_HOST=" + h, true
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		if b, err := os.ReadFile(filepath.Join(home, ".testcontainers.properties")); err == nil {
			s := string(b)
			if strings.Contains(s, "docker.host") || strings.Contains(s, "tc.host") {
				return "~/.testcontainers.properties", true
			}
		}
	}
	sockets := []string{"/var/run/docker.sock"}
	if x := getenv("XDG_RUNTIME_DIR"); x != "" {
		sockets = append(sockets, filepath.Join(x, "docker.sock"))
	}
	if home != "" {
		sockets = append(sockets,
			filepath.Join(home, ".docker", "run", "docker.sock"),
			filepath.Join(home, ".docker", "desktop", "docker.sock"))
	}
	sockets = append(sockets, filepath.Join("/run/user", strconv.Itoa(os.Getuid()), "docker.sock"))
	for _, s := range sockets {
		if fi, err := os.Stat(s); err == nil && fi.Mode().Type() == os.ModeSocket {
			return s, true
		}
	}
	return "", false
}

// pingDocker pings the engine testcontainers would use. The ping runs in its
// own goroutine so that a client that ignores its context cannot hold us past
// the deadline, and any panic inside testcontainers becomes an error.
func pingDocker(ctx context.Context, where string) error {
	ctx, cancel := context.WithTimeout(ctx, dockerPingTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("docker client panicked: %v", r)
			}
		}()
		cli, err := testcontainers.NewDockerClientWithOpts(ctx)
		if err != nil {
			done <- err
			return
		}
		defer cli.Close()
		_, err = cli.Ping(ctx, client.PingOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("no answer from the Docker engine at %s: %w", where, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("no answer from the Docker engine at %s: %w", where, ctx.Err())
	}
}

// provideContainer starts a PostgreSQL container with a database named
// DatabaseName. On failure it terminates whatever it started.
func provideContainer(ctx context.Context, image string) (db *Database, desc string, err error) {
	image = imageOrDefault(image)
	var secret [16]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return nil, "", err
	}
	password := hex.EncodeToString(secret[:])

	var ctr *tcpostgres.PostgresContainer
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("testcontainers panicked: %v", r)
		}
		if err != nil && ctr != nil {
			termCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
			defer cancel()
			_ = testcontainers.TerminateContainer(ctr, testcontainers.StopContext(termCtx))
			db = nil
		}
	}()

	startCtx, cancel := context.WithTimeout(ctx, containerStartTimeout)
	defer cancel()
	ctr, err = tcpostgres.Run(startCtx, image,
		tcpostgres.WithDatabase(DatabaseName),
		tcpostgres.WithUsername("postgres"),
		tcpostgres.WithPassword(password),
		tcpostgres.BasicWaitStrategies(),
	)
	if err != nil {
		return nil, "", fmt.Errorf("run %s: %w", image, err)
	}
	connStr, err := ctr.ConnectionString(startCtx, "sslmode=disable")
	if err != nil {
		return nil, "", fmt.Errorf("container connection string: %w", err)
	}
	cfg, err := pgx.ParseConfig(connStr)
	if err != nil {
		return nil, "", fmt.Errorf("container connection string: %w", err)
	}
	desc = describe(cfg) + " in " + image
	if err := selectOne(startCtx, cfg); err != nil {
		return nil, "", fmt.Errorf("container does not answer SELECT 1: %w", err)
	}
	c := ctr
	return &Database{
		URL:    connStr,
		Source: SourceContainer,
		closeFn: func(ctx context.Context) error {
			return testcontainers.TerminateContainer(c, testcontainers.StopContext(ctx))
		},
	}, desc, nil
}
