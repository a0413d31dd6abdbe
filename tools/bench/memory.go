package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/catalogspec/catalogspec/reference/catalogdtest"
	"github.com/catalogspec/catalogspec/reference/pgprovider"
)

// The memory benchmark (issue 29): the worst request of each kind a
// client can send (the memory findings of issue 29, and the largest write
// the contract accepts), each alone on a catalogd of its own, and twenty
// of it at once, with a bystander asking `me` over and over meanwhile.
// Memory is catalogd's resident set at its peak (VmHWM of
// /proc/<pid>/status, reset with clear_refs before each run); the
// bystander's figure is the slowest of its answers while the twenty ran.

// memKind is one kind of worst request.
type memKind struct {
	name string
	send func(ctx context.Context, s *catalogdtest.Server) (status int, size int, err error)
}

// memSetup is what the worst requests need in the database.
type memSetup struct {
	root, owner, nobody, bystander string // tokens
	ownerURN                       string
	small, large                   string // datasets of 2.2 and 13 MB
}

var memClient = &http.Client{Timeout: 2 * time.Minute}

func memDo(ctx context.Context, method, url, token string, body []byte, header ...string) (int, int, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-RestLi-Protocol-Version", "2.0.0")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := memClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	return res.StatusCode, int(n), err
}

func tinyDatasets(size int) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i := 0; b.Len() < size-200; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,tiny%d,PROD)", "status": {"value": {"removed": false}}}`, i)
	}
	b.WriteString("]")
	return b.Bytes()
}

func tinyRestli(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"proposals": [`)
	for i := 0; b.Len() < size-300; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"entityType": "dataset", "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,tiny%d,PROD)", "changeType": "UPSERT", "aspectName": "status", "aspect": {"value": "{\"removed\": false}", "contentType": "application/json"}}`, i)
	}
	b.WriteString(`], "async": "false"}`)
	return b.Bytes()
}

func memKinds(s memSetup) []memKind {
	const ingest = 15_900_000
	openapi, restli := tinyDatasets(ingest), tinyRestli(ingest)
	var mid bytes.Buffer
	mid.WriteString("[")
	for i := 0; i < 9500; i++ {
		if i > 0 {
			mid.WriteString(", ")
		}
		fmt.Fprintf(&mid, `{"urn": "urn:li:dataset:(urn:li:dataPlatform:hive,mid%d,PROD)", "datasetProperties": {"value": {"description": "%s"}}}`, i, strings.Repeat("p", 1500))
	}
	mid.WriteString("]")
	midWrite := mid.Bytes()
	large, _ := json.Marshal(map[string]any{"description": strings.Repeat("l", 15_000_000)})
	oneLarge, _ := json.Marshal(map[string]any{"proposals": []any{map[string]any{
		"entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,bench-15mb,PROD)", "entityType": "dataset", "changeType": "UPSERT",
		"aspectName": "datasetProperties", "aspect": map[string]any{"value": string(large), "contentType": "application/json"},
	}}})
	names := make([]map[string]string, 150)
	for i := range names {
		names[i] = map[string]string{"urn": s.small}
	}
	batch, _ := json.Marshal(names)
	var q strings.Builder
	q.WriteString("query Totals($n: String!) {")
	for i := 0; i < 24; i++ {
		fmt.Fprintf(&q, ` t%d: listAccessTokens(input: {count: 1000, filters: [{field: "ownerUrn", values: ["%s"]}, {field: "name", values: ["n%d", $n]}]}) { total }`, i, s.ownerURN, i)
	}
	q.WriteString(" }")
	totals := gql(q.String(), map[string]any{"n": strings.Repeat("\x01", 256)})
	return []memKind{
		{"OpenAPI v3 write of 16 MB of tiny aspects, without EDIT_ENTITY", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "POST", c.GMS+"/openapi/v3/entity/dataset", s.nobody, openapi)
		}},
		{"Rest.li batch of 16 MB of tiny aspects, without EDIT_ENTITY", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "POST", c.GMS+"/aspects?action=ingestProposalBatch", s.nobody, restli)
		}},
		{"OpenAPI v3 write of 16 MB of tiny aspects (160,000 datasets), by the root user", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "POST", c.GMS+"/openapi/v3/entity/dataset", s.root, openapi)
		}},
		{"OpenAPI v3 write of 9,500 aspects of 1.5 KB (15.3 MB), by the root user", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "POST", c.GMS+"/openapi/v3/entity/dataset", s.root, midWrite)
		}},
		{"Rest.li write of one 15 MB aspect, by the root user", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "POST", c.GMS+"/aspects?action=ingestProposalBatch", s.root, oneLarge)
		}},
		{"OpenAPI batchGet naming a dataset of one 2.2 MB aspect 150 times", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "POST", c.GMS+"/openapi/v3/entity/dataset/batchGet", s.nobody, batch)
		}},
		{"GET of a 13 MB entity", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "GET", c.GMS+"/entities/"+url.PathEscape(s.large), s.nobody, nil)
		}},
		{"GET of a 13 MB entity through the frontend", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "GET", c.Frontend+"/api/gms/entities/"+url.PathEscape(s.large), s.nobody, nil)
		}},
		{"GraphQL: 24 pages of 1,000 tokens of 13.9 KB under distinct filters, asking only their total", func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return memDo(ctx, "POST", c.GMS+"/api/graphql", s.owner, totals)
		}},
	}
}

// procKB reads a field of /proc/<pid>/status in kB.
func procKB(pid int, field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return -1
}

func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// answers counts the answers of a run by what they were.
type answers map[string]int

func (a answers) add(status, size int, err error) {
	switch {
	case err != nil:
		a["connection closed"]++
	case status == 200:
		a[fmt.Sprintf("200 (%s)", mb(size))]++
	default:
		a[strconv.Itoa(status)]++
	}
}

func (a answers) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if a[k] == 1 {
			parts = append(parts, k)
		} else {
			parts = append(parts, fmt.Sprintf("%d × %s", a[k], k))
		}
	}
	return strings.Join(parts, ", ")
}

func mb(n int) string {
	if n < 10_000 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// memoryBench runs the memory benchmark on db with catalogd bin.
func memoryBench(ctx context.Context, bin string, db *pgprovider.Database, twenty, mixedOnly bool) ([]row, error) {
	opts := catalogdtest.Options{Binary: bin, DatabaseURL: db.URL, Env: []string{"METADATA_SERVICE_AUTH_ENABLED=true"}, Args: []string{"--log-level", "error"}}
	setupServer, err := catalogdtest.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer setupServer.Stop()
	s, err := memPrepare(ctx, setupServer)
	if err != nil {
		return nil, fmt.Errorf("preparing the memory benchmark: %w", err)
	}
	var rows []row
	for _, k := range memKinds(s) {
		if mixedOnly {
			break
		}
		fmt.Printf("memory: %s ...\n", k.name)
		alone, err := memRun(ctx, opts, s, k, 1)
		if err != nil {
			return nil, err
		}
		value := alone
		if twenty {
			many, err := memRun(ctx, opts, s, k, 20)
			if err != nil {
				return nil, err
			}
			value += "; twenty at once: " + many
		}
		fmt.Printf("      %s\n", value)
		rows = append(rows, row{k.name, value, "under 200 MB alone; twenty at once: bystander within 1 s"})
	}
	if twenty {
		kinds := memKinds(s)
		var next atomic.Int64
		each := memKind{name: "twenty of each of the above at once", send: func(ctx context.Context, c *catalogdtest.Server) (int, int, error) {
			return kinds[int(next.Add(1)-1)%len(kinds)].send(ctx, c)
		}}
		fmt.Printf("memory: %s ...\n", each.name)
		value, err := memRun(ctx, opts, s, each, 20*len(kinds))
		if err != nil {
			return nil, err
		}
		fmt.Printf("      %s\n", value)
		rows = append(rows, row{each.name, value, "bystander within 1 s"})
	}
	return rows, nil
}

// memRun runs n of kind k at once on a catalogd of its own, warmed up, and
// says how they were answered, catalogd's peak, and, for n > 1, how long
// the bystander's slowest `me` took meanwhile.
func memRun(ctx context.Context, opts catalogdtest.Options, s memSetup, k memKind, n int) (string, error) {
	c, err := catalogdtest.Start(ctx, opts)
	if err != nil {
		return "", err
	}
	defer c.Stop()
	me := gql(`{ me { corpUser { urn } } }`, nil)
	for range 3 {
		if _, _, err := memDo(ctx, "POST", c.GMS+"/api/graphql", s.bystander, me); err != nil {
			return "", err
		}
	}
	if err := resetPeak(c.PID); err != nil {
		return "", fmt.Errorf("cannot reset catalogd's peak memory: %w", err)
	}
	rest := procKB(c.PID, "VmRSS")
	got := answers{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	began := time.Now()
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, size, err := k.send(ctx, c)
			mu.Lock()
			got.add(status, size, err)
			mu.Unlock()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var lat []time.Duration
	bystander := answers{}
	if n > 1 {
		for running := true; running; {
			select {
			case <-done:
				running = false
				continue
			default:
			}
			t := time.Now()
			status, _, err := memDo(ctx, "POST", c.GMS+"/api/graphql", s.bystander, me)
			lat = append(lat, time.Since(t))
			if err != nil || status != 200 {
				bystander.add(status, 0, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	<-done
	took := time.Since(began)
	peak := procKB(c.PID, "VmHWM")
	out := fmt.Sprintf("%s in %s, %d MB at the peak (%d at rest)", got, took.Round(100*time.Millisecond), peak>>10, rest>>10)
	if n > 1 {
		slices.Sort(lat)
		out += fmt.Sprintf(", the bystander's `me` %d times, the slowest %s", len(lat), ms(lat[len(lat)-1]))
		if len(bystander) > 0 {
			out += " (refused: " + bystander.String() + ")"
		}
	}
	return out, nil
}

// memPrepare makes the users, tokens and datasets the worst requests need.
func memPrepare(ctx context.Context, c *catalogdtest.Server) (memSetup, error) {
	var s memSetup
	var err error
	if s.root, err = c.Token(ctx, catalogdtest.Root, "bench-memory", "ONE_DAY"); err != nil {
		return s, err
	}
	user := func(name string) (string, error) {
		value, _ := json.Marshal(map[string]any{"active": true, "displayName": name})
		body, _ := json.Marshal(map[string]any{"proposal": map[string]any{
			"entityUrn": "urn:li:corpuser:" + name, "entityType": "corpuser", "changeType": "UPSERT",
			"aspectName": "corpUserInfo", "aspect": map[string]any{"value": string(value), "contentType": "application/json"},
		}})
		if status, _, err := memDo(ctx, "POST", c.GMS+"/aspects?action=ingestProposal", s.root, body); err != nil || status != 200 {
			return "", fmt.Errorf("ingest user %s: %d %v", name, status, err)
		}
		return c.Token(ctx, "urn:li:corpuser:"+name, "bench-memory", "ONE_DAY")
	}
	s.ownerURN = "urn:li:corpuser:bench-owner"
	if s.owner, err = user("bench-owner"); err != nil {
		return s, err
	}
	if s.nobody, err = user("bench-nobody"); err != nil {
		return s, err
	}
	if s.bystander, err = user("bench-bystander"); err != nil {
		return s, err
	}
	// The owner's tokens: as many as one may own, as large as they may be.
	vars := map[string]any{"a": s.ownerURN, "n": strings.Repeat("\x01", 256), "d": strings.Repeat("\x01", 2048)}
	for made := 1; made < 1000; {
		batch := min(50, 1000-made)
		var b strings.Builder
		b.WriteString("mutation Fill($a: String!, $n: String!, $d: String) {")
		for i := 0; i < batch; i++ {
			fmt.Fprintf(&b, " t%d: createAccessToken(input: {type: PERSONAL, actorUrn: $a, duration: ONE_DAY, name: $n, description: $d}) { metadata { id } }", i)
		}
		b.WriteString(" }")
		if status, _, err := memDo(ctx, "POST", c.GMS+"/api/graphql", s.owner, gql(b.String(), vars)); err != nil || status != 200 {
			return s, fmt.Errorf("making tokens: %d %v", status, err)
		}
		made += batch
	}
	s.small = "urn:li:dataset:(urn:li:dataPlatform:hive,bench-2mb,PROD)"
	s.large = "urn:li:dataset:(urn:li:dataPlatform:hive,bench-13mb,PROD)"
	put := func(urn, aspect string, size int) error {
		body := []byte(`[{"urn": "` + urn + `", "` + aspect + `": {"value": {"description": "` + strings.Repeat("m", size) + `"}}}]`)
		if status, _, err := memDo(ctx, "POST", c.GMS+"/openapi/v3/entity/dataset", s.root, body); err != nil || status != 200 {
			return fmt.Errorf("write %s: %d %v", urn, status, err)
		}
		return nil
	}
	if err := put(s.small, "datasetProperties", 2_200_000); err != nil {
		return s, err
	}
	if err := put(s.large, "datasetProperties", 6_500_000); err != nil {
		return s, err
	}
	return s, put(s.large, "editableDatasetProperties", 6_500_000)
}
