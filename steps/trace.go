package steps

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/catalogspec/catalogspec/runner"
)

// Leaving no trace, on the scenario's side. Everything a scenario makes on
// the target carries the scenario's id in its name (world.unique, person).
// Before any request that names such a thing goes out (world.send), the
// thing is recorded in the run's journal on the target (journal.go), and a
// cleanup that removes it is registered: users (the tokens that act as them
// are revoked at the end of the run, as DataHub's removeUser leaves them:
// trace.sweepTokens), datasets and other entities (hard
// deletion through OpenAPI v3), tags; policies and tokens are removed by the
// cleanups their steps register. A request that should be refused is
// recorded too: a broken target may carry it out. When the scenario's
// cleanups all succeed, its entries leave the journal; those of a scenario
// whose cleanup failed stay, and the run tries them again at its end.

// worldTrace is what a scenario recorded in the journal.
type worldTrace struct {
	// traceMu guards traced and what traceEntries registers: a step may
	// send requests from several goroutines at once (sendsEightPatches).
	traceMu sync.Mutex
	// traced are the journal keys the scenario recorded; true for those
	// it removes itself, false for those a switch of the exclusive window
	// owns (switches.go).
	traced map[string]bool
	// owner, while a scenario throws a switch, is that switch: the
	// policies it makes are put back with it.
	owner *bootSwitch
	// cleaning: the scenario is running its cleanups.
	cleaning bool
	// sessions are the session cookies the scenario was given, which it
	// signs out at its end.
	sessions map[string]bool
}

// Patterns of what the suite makes, in what a request sends: a URN, an id
// or a name holding "catalogspec-"; world.mentions keeps those that hold
// the scenario's id.
var (
	mentionedTag = regexp.MustCompile(`catalogspec-tag-[a-z0-9]+-[0-9]+`)
	// mentionedPolicy is the name part the suite gives a policy, whose URN
	// the target chooses.
	mentionedPolicy = regexp.MustCompile(`catalogspec-policy-[a-z0-9]+-[0-9]+`)
	// signUpEmail is the username of someone signing up.
	signUpEmail = regexp.MustCompile(`"email"\s*:\s*"(catalogspec-[^"\\]+)"`)
	// pipelineName is the pipeline_name the suite gives a datahub ingest
	// run: the run's report (its ingestion source and execution request,
	// whose URNs DataHub's CLI derives) says it.
	pipelineName = regexp.MustCompile(`catalogspec-pipeline-[a-z0-9]+-[0-9]+`)
)

// runReportAspects are the entity types of a datahub ingest run's report,
// whose URNs the CLI makes without the suite's names, and the aspect of
// each that names the run's pipeline: the journal records them with that
// name, which is read back before one is removed.
var runReportAspects = map[string]string{
	"dataHubIngestionSource":  "dataHubIngestionSourceInfo",
	"dataHubExecutionRequest": "dataHubExecutionRequestInput",
}

// urnsIn finds every URN in text: urn:li:<type>:<id>, the id either in
// parentheses (nested ones included, as a dataset's or a data job's) or up
// to the first character no id has; the URNs inside another are found too.
func urnsIn(text string) [][2]string {
	var out [][2]string
	for i := 0; ; {
		j := strings.Index(text[i:], "urn:li:")
		if j < 0 {
			return out
		}
		start := i + j
		i = start + len("urn:li:")
		k := i
		for k < len(text) && (text[k] >= 'a' && text[k] <= 'z' || text[k] >= 'A' && text[k] <= 'Z' || text[k] >= '0' && text[k] <= '9') {
			k++
		}
		if k == i || k >= len(text) || text[k] != ':' {
			continue
		}
		typ := text[i:k]
		end := k + 1
		if end < len(text) && text[end] == '(' {
			depth := 0
			for ; end < len(text); end++ {
				if text[end] == '(' {
					depth++
				} else if text[end] == ')' {
					if depth--; depth == 0 {
						end++
						break
					}
				} else if text[end] == '"' || text[end] == '\\' || text[end] == '\n' {
					break
				}
			}
			if depth != 0 {
				continue
			}
		} else {
			for end < len(text) && strings.IndexByte("\"\\'<>{}[]| \t\n\r,;&?#()/", text[end]) < 0 {
				end++
			}
		}
		if id := text[k+1 : end]; id != "" {
			out = append(out, [2]string{typ, id})
		}
	}
}

// mentions are the things of this scenario that the request names.
func (w *world) mentions(r request) []entry {
	if w.id == "" || (!strings.Contains(r.url, w.id) && !bytes.Contains(r.body, []byte(w.id))) {
		return nil
	}
	at := w.suite.trace.at(r.url)
	text := r.url
	if u, err := url.QueryUnescape(r.url); err == nil {
		text = u
	}
	text += "\n" + string(r.body)
	var out []entry
	seen := map[string]bool{}
	add := func(e entry) {
		if e.At = at; !seen[e.key()] {
			seen[e.key()] = true
			out = append(out, e)
		}
	}
	pipeline := pipelineName.FindString(string(r.body))
	if !strings.Contains(pipeline, w.id) {
		pipeline = ""
	}
	for _, m := range urnsIn(text) {
		urn := "urn:li:" + m[0] + ":" + m[1]
		if !strings.Contains(m[1], w.id) {
			if _, report := runReportAspects[m[0]]; report && pipeline != "" && r.method != http.MethodGet {
				add(entry{Kind: kindEntity, URN: urn, Name: pipeline})
			}
			continue
		}
		switch m[0] {
		case "corpuser":
			add(entry{Kind: kindUser, URN: urn})
		case "tag":
			add(entry{Kind: kindTag, URN: urn})
		case "dataHubPolicy":
			add(entry{Kind: kindPolicy, URN: urn})
		case "dataHubAccessToken":
			add(entry{Kind: kindToken, URN: urn})
		case "dataPlatform":
		default:
			add(entry{Kind: kindEntity, URN: urn})
		}
	}
	for _, id := range mentionedTag.FindAllString(text, -1) {
		if strings.Contains(id, w.id) {
			add(entry{Kind: kindTag, URN: "urn:li:tag:" + id})
		}
	}
	for _, name := range mentionedPolicy.FindAllString(text, -1) {
		if strings.Contains(name, w.id) {
			add(entry{Kind: kindPolicy, Name: name})
		}
	}
	if strings.HasSuffix(strings.SplitN(r.url, "?", 2)[0], "/signUp") {
		for _, m := range signUpEmail.FindAllStringSubmatch(string(r.body), -1) {
			if strings.Contains(m[1], w.id) {
				add(entry{Kind: kindUser, URN: "urn:li:corpuser:" + m[1]})
			}
		}
	}
	return out
}

// traceRequest records in the journal what the request may make, before
// it goes out, and registers the cleanups that remove it.
func (w *world) traceRequest(r request) error {
	if w.suite.trace == nil {
		return nil
	}
	return w.traceEntries(w.mentions(r)...)
}

// traceEntries records the entries in the journal, unless the scenario
// has, and registers their removal.
func (w *world) traceEntries(entries ...entry) error {
	tr := w.suite.trace
	if tr == nil || len(entries) == 0 {
		return nil
	}
	w.traceMu.Lock()
	defer w.traceMu.Unlock()
	if w.traced == nil {
		w.traced = map[string]bool{}
	}
	var fresh []entry
	for _, e := range entries {
		if _, ok := w.traced[e.key()]; !ok {
			fresh = append(fresh, e)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := tr.intend(ctx, fresh...); err != nil {
		return err
	}
	for _, e := range fresh {
		owned := true
		if w.owner != nil && e.Kind == kindPolicy {
			// Made by a switch of the window: put back with it.
			owned = false
			w.owner.keys = append(w.owner.keys, e.key())
		}
		w.traced[e.key()] = owned
		if !owned || w.cleaning || e.Kind == kindPolicy && e.URN == "" {
			continue // a policy made by name is deleted by its step's cleanup
		}
		w.undo("remove "+e.what(), func() error { return w.remove(e) })
	}
	return nil
}

// remove removes what e names, as the administrator of the deployment it
// was made at.
func (w *world) remove(e entry) error {
	tr := w.suite.trace
	c := tr.clients[e.At]
	if c == nil {
		return fmt.Errorf("no client for %s", e.what())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t := runner.Tally{Removed: map[string]int{}}
	err := tr.repairOne(ctx, c, e, &t, func() ([]policyView, error) { return c.policies(ctx) })
	for k, n := range t.Removed {
		tr.count(k, n)
	}
	return err
}

// finishTrace takes the scenario's entries out of the journal once its
// cleanups have all succeeded; otherwise the run tries them again at its
// end.
func (w *world) finishTrace(cleanupErr error) {
	tr := w.suite.trace
	if tr == nil || cleanupErr != nil {
		return
	}
	var keys []string
	for k, owned := range w.traced {
		if owned {
			keys = append(keys, k)
		}
	}
	tr.done(keys...)
}

// removeAtEnd records a tag the scenario is about to make, which it
// removes at its end.
func (w *world) removeTagAtEnd(urn string) {
	if w.suite.trace == nil {
		return
	}
	if err := w.traceEntries(entry{Kind: kindTag, URN: urn, At: w.atHere()}); err != nil {
		w.addFailure(err.Error())
	}
}

// atHere is where the scenario makes things: "noauth" at the auth-disabled
// deployment.
func (w *world) atHere() string {
	if w.noAuth {
		return "noauth"
	}
	return ""
}

// noteSessions registers, for every session the answer a to a request to
// u opened (a session cookie set), a cleanup that signs it out at the end
// of the scenario (GET /logOut), before its people are removed: the
// frontend keeps no session of the run's.
func (w *world) noteSessions(u string, a *answer) {
	if a == nil || a.header == nil || w.cleaning || w.suite.ReadOnly {
		return // a read-only audit opens no session, and signs none out
	}
	base, err := url.Parse(u)
	if err != nil {
		return
	}
	frontend := base.Scheme + "://" + base.Host
	for _, ck := range setCookies(a) {
		if ck.Name != sessionCookie || ck.Value == "" || ck.MaxAge < 0 {
			continue
		}
		if w.sessions == nil {
			w.sessions = map[string]bool{}
		}
		if w.sessions[ck.Value] {
			continue
		}
		w.sessions[ck.Value] = true
		cookie := ck.Name + "=" + ck.Value
		w.undo("sign out a session the scenario opened", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// Signed out whatever became of it: the frontend may still
			// keep a session its user can no longer use (suspended,
			// removed). Counted when it still signed someone in.
			// The session may be one opened over HTTPS (signapi-17):
			// the target's client trusts its TLS proxy.
			hc := w.suite.Target.HTTPClient(30 * time.Second)
			live, err := sessionLive(ctx, hc, frontend, cookie, w.suite.docs.me)
			if err != nil {
				return err
			}
			if err := logOut(ctx, hc, frontend, cookie); err != nil {
				return err
			}
			if live {
				w.suite.trace.count("sessions", 1)
			}
			return nil
		})
	}
}

// sessionCookie is the cookie DataHub's frontend keeps its session in.
const sessionCookie = "PLAY_SESSION"
