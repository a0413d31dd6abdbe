package catalogspec

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestREADMEFirstFiveMinutes runs the README's first-five-minutes commands
// as they are written, on a fresh data directory and free ports, and checks
// what each step printed: the README cannot drift from what works.
func TestREADMEFirstFiveMinutes(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the README's commands need %s: %v", tool, err)
		}
	}
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- first-five-minutes -->\n```sh\n(.*?)```\n<!-- /first-five-minutes -->").FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md has no first-five-minutes block")
	}
	script := string(m[1])
	exportLine := regexp.MustCompile(`(?m)^export DATA=\S+ GMS=\S+ FRONTEND=\S+$`)
	if !exportLine.MatchString(script) {
		t.Fatal("the block no longer sets DATA, GMS and FRONTEND on one export line")
	}
	dir, err := os.MkdirTemp("", "readme-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil { // the server's OS user must reach it
		t.Fatal(err)
	}
	script = exportLine.ReplaceAllString(script, fmt.Sprintf("export DATA=%s/pgdata GMS=127.0.0.1:%d FRONTEND=127.0.0.1:%d", dir, freePort(t), freePort(t)))
	script = strings.ReplaceAll(script, "2>catalogd.log", "2>"+dir+"/catalogd.log")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Env = append(os.Environ(), "DATABASE_URL=") // the README's user has none
	out, err := cmd.CombinedOutput()
	log, _ := os.ReadFile(dir + "/catalogd.log")
	if err != nil {
		t.Fatalf("the commands failed: %v\n--- output ---\n%s\n--- catalogd.log ---\n%s", err, out, log)
	}
	text := string(out)
	for _, want := range []string{
		`"urn":"urn:li:corpuser:datahub","username":"datahub"`, // me
		`{"data":{"createTag":"urn:li:tag:first"}}`,            // the tag
		`"com.linkedin.metadata.snapshot.TagSnapshot"`,         // read back
		`{"data":{"revokeAccessToken":true}}`,                  // revoked
		"\n401\n",                                              // and refused
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %s\n--- output ---\n%s", want, text)
		}
	}
	if n := strings.Count(text, "TagSnapshot"); n != 2 {
		t.Errorf("the tag was read back %d times, want once per tier", n)
	}
	if strings.Contains(string(log), "eyJ") {
		t.Error("catalogd's log holds a token")
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
