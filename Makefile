# catalogspec: the conformance suite and the reference metadata service.
#
#   make conformance   the suite against the reference (Postgres started for you)
#   make conformance-lagging  the must-level scenarios against the reference lagging as DataHub does
#   make build         bin/catalogd (the reference) and bin/catalogspec (the suite, one binary)
#   make assets        GraphiQL's scripts for catalogd's pages, from the npm registry (make build runs it)
#   make test          unit tests, the suite's self-test and the suite
#   make selftest      the suite run against injected faults: each must be caught
#   make run           the reference on a local Postgres, for a person to try
#   make generate      regenerate gqlgen code
#   make check-generate  fail when regenerating would change anything
#   make registry      regenerate reference/registry (DataHub's entity registry) from DataHub's source
#   make check-registry  fail when reference/registry is not what DataHub's source gives
#   make mutation      mutation testing: how much of the reference the suite pins down
#   make fuzz          each fuzz target for FUZZTIME (default 30s); make test replays their corpora
#   make bench         catalogd under load beside a bare handler, two replicas on one database,
#                      and the suite's runs timed (immediate, and lagging as DataHub)
#   make replica-proof the replica scenarios against a replica that never learns of a revocation

GO       ?= go
BIN      := $(CURDIR)/bin
CATALOGD := $(BIN)/catalogd
SUITE    := $(BIN)/catalogspec
REPORTS  := $(CURDIR)/reports

export CATALOGSPEC_REPORTS_DIR ?= $(REPORTS)

.PHONY: all conformance conformance-lagging test unit selftest run build assets generate check-generate registry check-registry lint clean mutation fuzz bench replica-proof

all: test

build: assets $(CATALOGD) $(SUITE)

# GraphiQL (and React) for catalogd's /api/graphiql, at the versions
# reference/web/npm/package-lock.json pins, copied where catalogd embeds
# them. Not committed; `go build` works without them (the page then says
# how to build them). Does nothing when they are there already.
assets:
	scripts/assets.sh

# Always rebuilt: go's own cache makes an unchanged build cheap.
$(CATALOGD): assets FORCE
	@mkdir -p $(BIN)
	$(GO) build -o $(CATALOGD) ./reference/cmd/catalogd

$(SUITE): FORCE
	@mkdir -p $(BIN)
	$(GO) build -o $(SUITE) ./cmd/catalogspec

FORCE:

# The suite against the reference: the harness provides Postgres, starts
# the catalogd instances the suite needs and mints the admin token itself
# (docs/suite.md says what it starts). `go test ./steps` runs the same suite.
conformance: build
	CATALOGSPEC_CATALOGD=$(CATALOGD) $(SUITE) run

# The must-level scenarios against the reference lagging as DataHub does
# (CATALOGSPEC_REFERENCE_LAG): policy changes take effect at a refresh every
# few seconds, token and policy lists show a change a second late. A step
# that reads once where DataHub makes it wait fails here. Reports go to
# reports/lagging. LAGGING=datahub lags with DataHub's own defaults (120 s).
LAGGING ?= 3s,1s

conformance-lagging: build
	CATALOGSPEC_CATALOGD=$(CATALOGD) CATALOGSPEC_REFERENCE_LAG=$(LAGGING) CATALOGSPEC_TAGS=@must \
	  CATALOGSPEC_REPORTS_DIR=$(REPORTS)/lagging $(SUITE) run

# Every test but the suite: the reference's tests and the suite's own.
unit: assets
	$(GO) test -count=1 -skip '^(TestFeatures|TestSelftest|TestURLMode|TestAuditWritesNothing|TestAuditCatchesFaults|TestLeavesNoTrace)$$' ./...

# The suite against the reference behind a proxy that injects one fault at a
# time (a wrong status, a dropped field, a privilege check skipped, ...): the
# clean run must pass and every fault must fail a scenario that names it.
# The table goes to reports/selftest.txt. Then the suite as a third party
# runs it: bin/catalogspec by URL against `catalogd serve`, and each
# configuration mistake (wrong URL, bad token, a typo in the tags) ending in
# exit 2 with one line that says what to fix, and an interrupted run saying
# so. Then the read-only audit by URL: it writes no row of the target's
# database, and catches each fault it claims to.
selftest: assets
	@mkdir -p $(REPORTS)
	$(GO) test -count=1 -v -timeout 30m -run '^(TestSelftest|TestURLMode|TestAuditWritesNothing|TestAuditCatchesFaults|TestLeavesNoTrace)$$' ./selftest/

test: assets lint check-registry unit selftest conformance conformance-lagging

run: build
	$(CATALOGD) serve

generate:
	cd reference/graph && $(GO) tool gqlgen generate --config gqlgen.yml

check-generate:
	scripts/check-generate.sh

# DataHub's entity registry, as the reference reads it (reference/registry):
# written by tools/registrygen from DataHub's own source at the commit the
# project follows, never by hand. DATAHUB_GIT is a clone (or bare
# repository) of datahub-project/datahub holding that commit; this project's
# machines keep one at the path below. Without one, check-registry says so
# and checks nothing more than the unit tests do (TestRegistryIsDataHubs:
# the two files are one run of the generator).
DATAHUB_GIT ?= $(firstword $(wildcard /work/.mirror/TimSchlitzer+datahub/repo))

registry:
	@test -n "$(DATAHUB_GIT)" || { echo "registry: set DATAHUB_GIT to a clone of datahub-project/datahub"; exit 2; }
	$(GO) run ./tools/registrygen -datahub "$(DATAHUB_GIT)" -out reference/registry

check-registry:
	@if [ -z "$(DATAHUB_GIT)" ]; then \
	  echo "check-registry: skipped, no DataHub source (set DATAHUB_GIT to a clone of datahub-project/datahub)"; \
	else $(GO) run ./tools/registrygen -check -datahub "$(DATAHUB_GIT)" -out reference/registry; fi

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf $(BIN) $(REPORTS) reference/web/npm/node_modules
	find reference/web/static/vendor -type f ! -name README.md -delete

# Mutation testing of the reference: each mutant changes one token of its
# domain, HTTP or storage code, and the suite runs against it. New mutants
# stop starting once BUDGET is spent (0: run them all); JOBS run at once.
# The report, with the kill rate and every survivor, goes to
# mutation/report.txt; mutation/equivalent.txt lists the mutants that cannot
# change behaviour, each with why. Not part of `make test`: a complete run
# takes most of an hour: docs/mutation.md has the latest complete run.
BUDGET ?= 30m
JOBS   ?= 1

mutation: assets
	CATALOGSPEC_PROPAGATION_TIMEOUT=1s $(GO) run ./tools/mutate -budget $(BUDGET) -jobs $(JOBS) -equivalent mutation/equivalent.txt -out mutation/report.txt

# Fuzzing: each target runs for FUZZTIME. A failing input is written under
# the package's testdata/fuzz/<Target>/, where `make test` (go test) replays
# it from then on: commit it with the fix.
FUZZTIME ?= 30s
FUZZ_TARGETS := \
	./reference:FuzzURN \
	./reference:FuzzAspectName \
	./reference:FuzzPatch \
	./reference/jwt:FuzzTokenVerify \
	./reference/httpapi:FuzzGraphQLRequest \
	./reference/httpapi:FuzzProposal \
	./reference/httpapi:FuzzOpenAPIItems \
	./reference/httpapi:FuzzWriteGate \
	./reference/httpapi:FuzzEncodeJSON \
	./reference/graph:FuzzCheckDocument

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "== $$name ($$pkg) for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg; \
	done

# Benchmark: catalogd (two replicas on one database) and a bare net/http
# handler under the same load in one run; throughput and latency of `me` and
# of `createTag`, flatness as tokens and policies grow, and how soon a token
# revoked on one replica is refused on the other. It prints a summary table
# (BENCHMARKS.md keeps the latest). Not part of `make test`: nothing there
# depends on timings. It first times the suite: the whole of it against the
# reference, and its must-level scenarios against the reference and against
# the reference lagging with DataHub's defaults (policies refreshed every
# 120 s). BENCH_ARGS passes flags, e.g.
# BENCH_ARGS='-duration=5s -suite=false'; `go run ./tools/bench -h` lists them.
# BENCHMARKS.md has the latest run, and how long it took.
BENCH_ARGS ?=

bench: assets
	$(GO) run ./tools/bench $(BENCH_ARGS)
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3s ./reference/httpapi
	$(GO) test -run '^$$' -bench Audit -benchtime 5x ./selftest

# The replica scenarios judge what they claim whatever the load: catalogd
# built broken (a replica that never applies a revocation made through
# another instance), and the whole suite run against it RUNS times; each
# run must fail replica-01. Not part of `make test` (a minute a run).
RUNS ?= 5

replica-proof: assets
	$(GO) run ./tools/replicaproof -runs $(RUNS)
