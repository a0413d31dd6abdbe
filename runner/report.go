package runner

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"time"

	"github.com/catalogspec/catalogspec"
)

// report.html is the page a person reads first: the verdict, the counts by
// level and by capability, then each scenario that did not pass with its
// rule, the step that failed, the requests and answers (tokens masked) and
// a curl line that sends the last request again. Everything it shows is
// also in results.json.

type htmlReport struct {
	Version, SpecVersion, Target, FailOn, Finished, Took string
	Verdict                                              string // in one sentence (runReport.verdict)
	Outcome                                              string // in a word (runReport.outcome)
	CutShort                                             string // interrupted, stopped at the first failure, or ""
	NotRun                                               int
	ReadOnly                                             bool // a read-only audit
	NotInAudit                                           int  // scenarios selected but not read-only
	Conformant                                           bool
	Total                                                int
	Statuses                                             []string
	Counts                                               map[string]int
	Levels, Caps                                         []htmlRow
	Problems                                             []*Outcome // failed, then warnings, then known
	All                                                  []*Outcome
	Stale                                                []string
}

type htmlRow struct {
	Name   string
	Counts map[string]int
	Total  int
}

func (rep *runReport) writeHTML(path string, tgt *Target, failOn string, elapsed time.Duration) error {
	h := htmlReport{
		Version: Version, SpecVersion: catalogspec.SpecVersion, Target: tgt.describe(), FailOn: failOn,
		Finished: time.Now().UTC().Format("2006-01-02 15:04:05 UTC"), Took: elapsed.Round(time.Millisecond).String(),
		Conformant: rep.conformant(),
		Verdict:    rep.verdict(failOn), Outcome: rep.outcome(), CutShort: rep.cutShort(), NotRun: rep.counts[StatusNotRun],
		ReadOnly: rep.readOnly,
		Total:    len(rep.outcomes), Counts: rep.counts, All: rep.outcomes, Stale: rep.stale,
	}
	// Columns for the statuses that occur, and always passed and failed.
	for _, st := range statusOrder {
		if rep.counts[st] > 0 || st == StatusPassed || st == StatusFailed {
			h.Statuses = append(h.Statuses, st)
		}
	}
	levelRows := map[string]*htmlRow{}
	capRows := map[string]*htmlRow{}
	bump := func(rows map[string]*htmlRow, order *[]htmlRow, key, status string) {
		r := rows[key]
		if r == nil {
			r = &htmlRow{Name: key, Counts: map[string]int{}}
			rows[key] = r
		}
		r.Counts[status]++
		r.Total++
	}
	for _, o := range rep.outcomes {
		if o.Reason == notInAudit {
			h.NotInAudit++
		}
		bump(levelRows, &h.Levels, o.Level, o.Status)
		for _, c := range o.Capabilities {
			bump(capRows, &h.Caps, c, o.Status)
		}
	}
	for _, l := range levels {
		if r := levelRows[l]; r != nil {
			h.Levels = append(h.Levels, *r)
		}
	}
	for _, c := range knownCapabilities {
		if r := capRows[c]; r != nil {
			h.Caps = append(h.Caps, *r)
		}
	}
	for _, st := range []string{StatusFailed, StatusWarning, StatusKnown} {
		for _, o := range rep.outcomes {
			if o.Status == st {
				h.Problems = append(h.Problems, o)
			}
		}
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, h); err != nil {
		return err
	}
	return writeWhole(path, b.Bytes())
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"seconds": func(f float64) string { return fmt.Sprintf("%.2fs", f) },
	"has":     func(list []string, s string) bool { return slices.Contains(list, s) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>catalogspec {{if .ReadOnly}}read-only audit{{else}}report{{end}}: {{.Outcome}}</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px}
.meta{color:#57606a;font-size:13px}
.verdict{display:inline-block;padding:6px 12px;border-radius:6px;font-weight:600;margin:12px 0}
.ok{background:#dafbe1;color:#116329}.bad{background:#ffebe9;color:#a40e26}.interrupted{background:#fff8c5;color:#6e4c00;border:1px solid #d4a72c}
table{border-collapse:collapse;background:#fff;width:100%;font-size:14px}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f4} td.n{text-align:right;font-variant-numeric:tabular-nums}
.s-passed{color:#116329}.s-failed{color:#a40e26;font-weight:600}.s-warning{color:#8a5300;font-weight:600}
.s-known{color:#6e4c00}.s-skipped,.s-disabled,.s-not\ run{color:#57606a}
.card{background:#fff;border:1px solid #d0d7de;border-left:5px solid #a40e26;border-radius:6px;padding:12px 16px;margin:12px 0}
.card.warning{border-left-color:#bf8700}.card.known{border-left-color:#8c959f}
.card h3{font-size:15px;margin:0 0 6px}
.tag{font:12px ui-monospace,monospace;background:#eef1f4;border-radius:4px;padding:1px 5px;margin-right:4px}
pre{background:#0d1117;color:#e6edf3;padding:10px;border-radius:6px;overflow-x:auto;font-size:12.5px;white-space:pre-wrap;word-break:break-word}
.label{font-size:12px;color:#57606a;text-transform:uppercase;letter-spacing:.04em;margin-top:8px}
</style></head><body><main>
<h1>catalogspec {{if .ReadOnly}}read-only audit{{else}}conformance report{{end}}</h1>
<div class="meta">suite {{.Version}}, spec {{.SpecVersion}} &middot; {{.Finished}} &middot; took {{.Took}}</div>
<div class="meta">target: {{.Target}}</div>
<div class="verdict {{if eq .CutShort "interrupted"}}interrupted{{else if .Conformant}}ok{{else}}bad{{end}}">{{.Verdict}}</div>
{{if .ReadOnly}}<p class="read-only"><strong>Read-only:</strong> this audit ran only the scenarios tagged <code>@read-only</code>, which write nothing to a target that works{{if .NotInAudit}}; the other {{.NotInAudit}} it selected write to the target or need an administrator's token, and are listed below as skipped (<code>catalogspec run</code> checks them){{end}}.</p>{{end}}
{{if .CutShort}}<p class="cut">This run was {{.CutShort}}: {{.NotRun}} of the {{.Total}} selected scenarios did not run, so it says nothing of them. Run it again to the end to judge the target.</p>{{end}}
<p>{{.Total}} scenarios:{{range $i, $s := .Statuses}}{{with index $.Counts $s}} <span class="s-{{$s}}">{{.}} {{$s}}</span>{{end}}{{end}}.
{{if .Stale}}<br><span class="s-failed">Stale baseline entries (these pass now): {{range .Stale}}{{.}} {{end}}</span>{{end}}</p>

<h2>By level</h2>
<table><tr><th>level</th>{{range .Statuses}}<th>{{.}}</th>{{end}}<th>total</th></tr>
{{range .Levels}}<tr><td>@{{.Name}}</td>{{$r := .}}{{range $.Statuses}}<td class="n s-{{.}}">{{with index $r.Counts .}}{{.}}{{end}}</td>{{end}}<td class="n">{{.Total}}</td></tr>{{end}}
</table>
<h2>By capability</h2>
<table><tr><th>capability</th>{{range .Statuses}}<th>{{.}}</th>{{end}}<th>total</th></tr>
{{range .Caps}}<tr><td>{{.Name}}</td>{{$r := .}}{{range $.Statuses}}<td class="n s-{{.}}">{{with index $r.Counts .}}{{.}}{{end}}</td>{{end}}<td class="n">{{.Total}}</td></tr>{{end}}
</table>

<h2>{{if .Problems}}What did not pass{{else}}Every scenario that ran passed{{end}}</h2>
{{range .Problems}}<div class="card {{.Status}}">
<h3><span class="s-{{.Status}}">{{.Status}}</span> &middot; {{.Name}}</h3>
<div><span class="tag">@id:{{.ID}}</span><span class="tag">@{{.Level}}</span>{{range .Capabilities}}<span class="tag">@cap:{{.}}</span>{{end}} <span class="meta">{{.Where}}</span></div>
{{if .Rule}}<div class="label">rule</div><div>{{.Rule}}</div>{{end}}
{{if .Reason}}<div class="label">known because</div><div>{{.Reason}}</div>{{end}}
<div class="label">failing step</div><div>{{.Step}}</div>
<div class="label">what went wrong, with the requests and answers</div><pre>{{.Message}}</pre>
{{if .Curl}}<div class="label">reproduce the last request (set TOKEN first)</div><pre>{{.Curl}}</pre>{{end}}
</div>{{end}}

<h2>Every scenario</h2>
<details><summary>{{.Total}} scenarios</summary>
<table><tr><th>status</th><th>id</th><th>level</th><th>scenario</th><th>where</th><th>time</th></tr>
{{range .All}}<tr><td class="s-{{.Status}}">{{.Status}}</td><td>{{.ID}}</td><td>{{.Level}}</td><td>{{.Name}}{{if .Reason}}<div class="meta">{{.Reason}}</div>{{end}}</td><td class="meta">{{.Where}}</td><td class="n">{{seconds .Duration}}</td></tr>
{{end}}</table></details>
</main></body></html>
`))
