package main

// Each mutant runs on a database of its own, made on the one PostgreSQL
// pgprovider gives and dropped afterwards.

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// withDatabase returns the connection string u pointed at database name.
func withDatabase(u, name string) (string, error) {
	if strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://") {
		p, err := url.Parse(u)
		if err != nil {
			return "", errors.New("the database URL does not parse")
		}
		p.Path, p.RawPath = "/"+name, ""
		return p.String(), nil
	}
	// keyword=value form: a later dbname wins.
	return u + " dbname=" + name, nil
}

// recreateDatabase creates database name, dropping a leftover of an
// earlier, interrupted run first.
func (r *runner) recreateDatabase(ctx context.Context, name string) error {
	if err := r.dropDatabase(ctx, name); err != nil {
		return err
	}
	return r.admin(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
}

func (r *runner) dropDatabase(ctx context.Context, name string) error {
	err := r.admin(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42601" { // before PostgreSQL 13: no FORCE
		err = r.admin(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize())
	}
	return err
}

// admin runs one statement on the database pgprovider gave.
func (r *runner) admin(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, r.db.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return err
}
