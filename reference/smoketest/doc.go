// Package smoketest replays DataHub's own smoke tests against catalogd on
// real ports over a real PostgreSQL, request for request: the paths, the
// bodies (the GraphQL documents copied from the smoke test, character for
// character, and JSON encoded as Python's json.dumps encodes it), the
// headers and the cookies, carried as Python's requests.Session carries
// them. Each request names the file and line of the smoke test that sends
// it, and each answer is checked as the smoke test checks it. The source is
// datahub-project/datahub at commit 7e93355 (2026-03-27).
package smoketest
