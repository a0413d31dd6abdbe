# catalogspec: the conformance suite and the reference metadata service.
#
#   make conformance   the suite against the reference (Postgres started for you)
#   make test          unit tests and the suite
#   make run           the reference on a local Postgres, for a person to try
#   make generate      regenerate gqlgen code
#   make check-generate  fail when regenerating would change anything

GO       ?= go
BIN      := $(CURDIR)/bin
CATALOGD := $(BIN)/catalogd
REPORTS  := $(CURDIR)/reports

export CATALOGSPEC_REPORTS_DIR ?= $(REPORTS)

.PHONY: all conformance test unit run build generate check-generate lint clean

all: test

build: $(CATALOGD)

# Always rebuilt: go's own cache makes an unchanged build cheap.
$(CATALOGD): FORCE
	@mkdir -p $(BIN)
	$(GO) build -o $(CATALOGD) ./reference/cmd/catalogd

FORCE:

# The suite against the reference: the harness provides Postgres, starts two
# catalogd instances (auth on and off) and mints the admin token itself.
conformance: build
	@mkdir -p $(REPORTS)
	CATALOGSPEC_CATALOGD=$(CATALOGD) $(GO) test -count=1 -v -run '^TestFeatures$$' ./steps/

# Every test but the suite: the reference's tests and the suite's own.
unit:
	$(GO) test -count=1 -skip '^TestFeatures$$' ./...

test: lint unit conformance

run: build
	$(CATALOGD) serve

generate:
	cd reference/graph && $(GO) tool gqlgen generate --config gqlgen.yml

check-generate:
	scripts/check-generate.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf $(BIN) $(REPORTS)
