package steps

import "github.com/catalogspec/catalogspec/runner"

// readCatalog reads the scenario catalog, for spec_test.go, which checks
// SPEC.md against it.
var readCatalog = runner.ReadScenarios
