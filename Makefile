# Surveys: make run serves on the embedded store; make test runs every test,
# with the real services they need (Azurite and axe-core from tools/package-lock.json).

GO        ?= go
BIN       := bin/surveys
ADDR      ?= :8080
DATA      ?= data
STATICCHECK_VERSION ?= v0.8.2

.PHONY: run build test tools debs screenshots lint bench clean

run: build
	SURVEYS_ADDR=$(ADDR) SURVEYS_DATA=$(DATA) ./$(BIN) serve

build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/surveys

# tools installs what the tests need: Azurite and axe-core, pinned in tools/package-lock.json.
tools: tools/node_modules/.package-lock.json

tools/node_modules/.package-lock.json: tools/package.json tools/package-lock.json
	npm ci --prefix tools --prefer-offline --no-audit --no-fund --loglevel=error

# debs installs, in one apt run, the Debian packages the tests need that
# are missing: Chromium (the browser test), PostgreSQL (internal/postgres/pgtest
# runs initdb and postgres from /usr/lib/postgresql/*/bin), shellcheck,
# caddy, nginx and systemd-analyze (the checks of deploy/, cmd/surveys/deploy_test.go),
# and pspp and Rscript (r-base-core), which run the SPSS and R exports' syntax
# (internal/codebook).
# On a host run by systemd, apt starts caddy and nginx: systemctl disable --now caddy nginx.
debs:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	for tp in shellcheck:shellcheck caddy:caddy nginx:nginx systemd-analyze:systemd pspp:pspp Rscript:r-base-core; do \
		PATH="$$PATH:/usr/sbin" command -v $${tp%%:*} >/dev/null || missing="$$missing $${tp#*:}"; done; \
	if [ -n "$$missing" ]; then echo "apt-get install$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi

# The timeout bounds a stuck run, not a speed: on a machine whose cores are
# busy with other work the browser tests' package alone may take a while.
# make test starts the packages whose tests take longest first (two run at
# a time), so that the many short ones fill in beside them rather than
# leaving one long package to run alone at the end. The worker's before
# the web's: its test binary builds sooner, and web then worker in one
# slot was the longest path of a clean-clone run (207-435 s, then to 587 s).
SLOW_PACKAGES := ./cmd/surveys ./internal/worker ./internal/web ./internal/store
# The embedded store's SQLite (modernc.org/sqlite, C translated to Go with
# unsafe pointer arithmetic throughout) is built without checkptr, the
# unsafe.Pointer checks -race turns on: they spent 30 % of the worker
# tests' CPU inside SQLite. It keeps the race detector (built without it,
# its locks go unseen and the detector reports races that are not there).
# SQLite's own translated C (modernc.org/sqlite/lib) is built without the
# race detector's instrumentation: its locks are modernc.org/libc's, which
# keeps it, so what it synchronises stays seen. That instrumentation was a
# quarter of the worker tests' CPU (worker.test: 171 CPU-s, 128 without),
# spent checking a translation of SQLite rather than our code.
RACE_FLAGS := -race -gcflags='modernc.org/...=-d=checkptr=0' -gcflags='modernc.org/sqlite/lib=-d=checkptr=0 -race=false'

# The browser tests (cmd/surveys, in a real Chromium) run without the race
# detector, four at a time, beside the rest: they mostly wait on the
# browser (autosave's second, the workers' polls, rendering), and under
# -race their in-process server cost more CPU than any other package. The
# handlers and workers they drive run under -race in internal/web,
# internal/worker and cmd/surveys' other end-to-end tests (crashes,
# migrations, views, mail, webhooks).
BROWSER_TESTS := Browser|InTheBrowser|IntegrationsEndToEnd

# The tests' files (the embedded stores they open by the hundred, each
# commit synced to disk; PostgreSQL's and Azurite's data) go to memory when
# /dev/shm has 8 GB free: the web tests' system time fell by a third.
TEST_TMPDIR := $(shell d=/dev/shm; [ -d $$d ] && [ -w $$d ] && \
	[ "$$(df -Pk $$d 2>/dev/null | awk 'NR==2 {print $$4}')" -gt 8000000 ] 2>/dev/null && echo $$d/surveys-tests)
TEST_ENV := $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR))

# npm's install (mostly waiting on the disk) runs beside go vet (the CPU).
test: debs
	@$(MAKE) --no-print-directory tools & npm=$$!; \
	$(GO) vet ./...; vet=$$?; wait $$npm && exit $$vet
	@$(if $(TEST_TMPDIR),mkdir -p $(TEST_TMPDIR);) \
	$(TEST_ENV) $(GO) test -count=1 -timeout 60m -parallel 4 -run '$(BROWSER_TESTS)' ./cmd/surveys & browser=$$!; \
	$(TEST_ENV) $(GO) test $(RACE_FLAGS) -count=1 -timeout 60m -skip '$(BROWSER_TESTS)' $(SLOW_PACKAGES) \
		$$($(GO) list ./... | grep -v -x -e '.*/cmd/surveys' -e '.*/internal/web' -e '.*/internal/worker' -e '.*/internal/store'); race=$$?; \
	wait $$browser; browser=$$?; echo "race-detector tests: exit $$race; browser tests: exit $$browser"; \
	[ $$race -eq 0 ] && [ $$browser -eq 0 ]

# make screenshots runs the browser tests keeping a picture of every page
# they visit in artifacts/screenshots/ (make test takes none: they are for
# people to look at, and cost more than the checks).
screenshots: tools debs
	SURVEYS_SCREENSHOTS=1 $(GO) test -count=1 -parallel 4 -run '$(BROWSER_TESTS)' ./cmd/surveys

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

bench: tools build
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...
	$(GO) run ./cmd/loadgen --bin $(BIN) --azure

clean:
	rm -rf bin
