// Package hardening holds the tests that attack catalogd from outside, as a
// hostile client or a failing database would: the abuse test (documents
// and connections built to exhaust it, and input built to break it) and the
// fault test (Postgres stopped and frozen under load). They start the real
// binary on loopback against a real PostgreSQL and read its memory from
// /proc.
package hardening
