// Package runner runs catalogspec's features against a target and judges
// it: it selects the scenarios (their tags, ids and levels: scenarios.go),
// finds or starts the target (target.go, reference.go), checks it before
// any scenario (through the steps' Preflight), schedules the scenarios
// (schedule.go), starts the browser the @ui scenarios drive (browser.go),
// and writes the verdict and the reports: results.json, junit.xml,
// report.html, cucumber.json (results.go, report.go, junit.go), against a
// baseline of known failures (baseline.go).
//
// The step definitions come in as a value (Steps; package steps provides
// them): steps imports runner, never the other way. cmd/catalogspec and
// `go test ./steps` both call Run.
package runner
