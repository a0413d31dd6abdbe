package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/catalogspec/catalogspec/reference"
)

// TestTranslateClassifies: the one place that turns database errors into
// the domain's codes; an error it does not know stays an error (a server
// error), never nothing.
func TestTranslateClassifies(t *testing.T) {
	pg := func(code string) error { return &pgconn.PgError{Code: code, Message: "m"} }
	for _, tc := range []struct {
		err  error
		want reference.ErrorCode
	}{
		{pgx.ErrNoRows, reference.ENOTFOUND},
		{pg("23505"), reference.ECONFLICT},
		{pg("22021"), reference.EBADREQUEST},
		{pg("22P05"), reference.EBADREQUEST},
		{pg("54000"), reference.EBADREQUEST},
		{pg("08006"), reference.EUNAVAILABLE},
		{pg("08001"), reference.EUNAVAILABLE},
		{pg("57P01"), reference.EUNAVAILABLE},
		{pg("53300"), reference.EUNAVAILABLE},
		{pg("53200"), reference.EINTERNAL},
		{pg("42P01"), reference.EINTERNAL},
		{pg("23503"), reference.EINTERNAL},
		{context.DeadlineExceeded, reference.EUNAVAILABLE},
		{context.Canceled, reference.EUNAVAILABLE},
		{io.EOF, reference.EUNAVAILABLE},
		{fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), reference.EUNAVAILABLE},
		{net.ErrClosed, reference.EUNAVAILABLE},
		{fmt.Errorf("acquire: %w", puddle.ErrClosedPool), reference.EUNAVAILABLE},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, reference.EUNAVAILABLE},
		{errors.New("can't scan into dest[0]"), reference.EINTERNAL},
	} {
		got := translate(tc.err)
		if got == nil || reference.ErrorCodeOf(got) != tc.want {
			t.Errorf("translate(%v) = %v (%s), want %s", tc.err, got, reference.ErrorCodeOf(got), tc.want)
		}
	}
	if translate(nil) != nil {
		t.Error("translate(nil) is not nil")
	}
}

// TestWithQueryTimeoutTakesOnlyPositive: zero or less keeps the default; any
// positive duration, however small, is used.
func TestWithQueryTimeoutTakesOnlyPositive(t *testing.T) {
	db := &DB{timeout: DefaultQueryTimeout}
	WithQueryTimeout(0)(db)
	WithQueryTimeout(-time.Second)(db)
	if db.timeout != DefaultQueryTimeout {
		t.Errorf("after 0 and -1s: %s, want the default %s", db.timeout, DefaultQueryTimeout)
	}
	WithQueryTimeout(time.Nanosecond)(db)
	if db.timeout != time.Nanosecond {
		t.Errorf("after 1ns: %s", db.timeout)
	}
}
