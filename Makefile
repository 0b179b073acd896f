# svc: make run (start svcd on the embedded default), make test (install what the tests need and run them all).
SHELL := /bin/bash
NODE_DEPS := node_modules/.installed
APT_PACKAGES := rsync openssl libxml2-utils rpki-client fort-validator octorpki libfaketime postgresql chromium stress-ng softhsm2 prometheus
SRC := $(shell find src -name '*.ts' -not -path 'src/ui/*' 2>/dev/null)
UI_SRC := $(shell find src/ui -type f 2>/dev/null)

.PHONY: all run test test-load check build deps system-deps system-deps-backports bench fixtures clean

all: build

# npm packages, installed when package.json or the lock file changed (npm ci on a clean clone).
$(NODE_DEPS): package.json package-lock.json
	@if [ -d node_modules ] && [ ! -f $(NODE_DEPS) ]; then npm install --no-audit --no-fund; else npm ci --no-audit --no-fund; fi
	@touch $(NODE_DEPS)

deps: $(NODE_DEPS)

# Debian packages the tests need (relying parties, rsync, xmllint, openssl, libfaketime, PostgreSQL for the clusters
# the tests start in temporary directories, Chromium for the console's browser tests); apt-get only for what is missing.
system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else echo "need root or sudo to install:$$missing" >&2; exit 1; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null 2>&1 || \
	    { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends $$missing; }; \
	fi

# rpki-client 9.7 and FORT 1.6.6 from Debian's bookworm-backports (design.md §5: the newest validators, RFC 9589,
# 9674, 9697, 9829, 9981). Idempotent: nothing happens when the installed versions are already at least those; the
# suite is added once (deb822, same URI and keyring as the main suite) and apt-get update runs only when the suite's
# package list is missing or the install fails. Debian's archive only.
BPO_SOURCES := /etc/apt/sources.list.d/bookworm-backports.sources
BPO_WANT := rpki-client=9.7 fort-validator=1.6.6
system-deps-backports: system-deps
	@need=""; for pv in $(BPO_WANT); do p=$${pv%%=*}; v=$${pv#*=}; \
	  have=$$(dpkg-query -W -f='$${Version}' $$p 2>/dev/null); \
	  dpkg --compare-versions "$${have:-0}" ge "$$v" || need="$$need $$p"; done; \
	if [ -n "$$need" ]; then \
	  echo "installing from bookworm-backports:$$need"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else echo "need root or sudo to install:$$need" >&2; exit 1; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  if [ ! -f $(BPO_SOURCES) ]; then \
	    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' | $$SUDO tee $(BPO_SOURCES) >/dev/null; fi; \
	  ls /var/lib/apt/lists/*_dists_bookworm-backports_* >/dev/null 2>&1 || $$SUDO apt-get update -qq; \
	  $$SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports $$need >/dev/null 2>&1 || \
	    { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports $$need; }; \
	  for pv in $(BPO_WANT); do p=$${pv%%=*}; v=$${pv#*=}; have=$$(dpkg-query -W -f='$${Version}' $$p 2>/dev/null); \
	    dpkg --compare-versions "$${have:-0}" ge "$$v" || { echo "$$p $$have installed, need $$v or newer (bookworm-backports)" >&2; exit 1; }; done; \
	fi

dist/.built: $(NODE_DEPS) $(SRC) tsconfig.json package.json
	@rm -rf dist
	npx tsc -p tsconfig.json
	@chmod +x dist/main.js dist/cli.js
	@touch dist/.built

# The web console (design.md §8): type-checked with its own tsconfig (DOM, JSX), bundled by esbuild into dist/ui/,
# which svcd serves at /ui/. After dist/.built, which starts from an empty dist/.
dist/ui/.built: dist/.built $(UI_SRC) scripts/build-ui.mjs fixtures/openapi/schema.d.ts
	npx tsc -p src/ui/tsconfig.json
	node scripts/build-ui.mjs dist/ui
	@touch dist/ui/.built

build: dist/.built dist/ui/.built

# Start svcd with the embedded default (testbed, embedded repository) in ./data/.
run: build
	node dist/main.js -c config/embedded.toml

check: $(NODE_DEPS)
	npx tsc -p tsconfig.check.json
	npx tsc -p src/ui/tsconfig.json

# The tests are type-checked once by `check` (tsconfig.check.json includes test/), not again per file by tap
# (TAP_TYPECHECK would cost each of the ~160 files about 3.5 s of CPU).
test: system-deps-backports build check
	npx tap

# The suite beside a second workload (issue 23's acceptance): `stress-ng --cpu 2` keeps both cores busy while tap
# runs, and is stopped afterwards whatever tap's result; the tap time is printed. TAP_FILES="a.test.ts b.test.ts"
# runs only those files (e.g. the timing-sensitive ones, several times with TAP_REPEAT=5).
STRESS_CPUS ?= 2
TAP_REPEAT ?= 1
test-load: system-deps-backports build check
	@stress-ng --cpu $(STRESS_CPUS) --quiet & stress=$$!; trap 'kill $$stress 2>/dev/null; wait $$stress 2>/dev/null' EXIT; \
	rc=0; for i in $$(seq $(TAP_REPEAT)); do start=$$(date +%s); npx tap $(TAP_FILES) || rc=1; \
	  echo "test-load: run $$i of $(TAP_REPEAT): tap took $$(( $$(date +%s) - start )) s beside stress-ng --cpu $(STRESS_CPUS)"; done; exit $$rc

# Benchmarks (bench/run.ts): figures, targets and ratios against this machine's limits measured in the same run.
# BENCH_QUICK=1 for a few-minute version with smaller sizes; BENCH="pubd cas" runs a subset. Report: bench/results/.
bench: build
	npx tsc -p bench/tsconfig.json
	@echo '*' > dist-bench/.gitignore
	node --expose-gc dist-bench/bench/run.js $(BENCH)

# Rewrite the golden files on purpose (error bodies, objects, the CMS message; style.md §8), then review the diff.
fixtures: build
	node --import=./node_modules/@tapjs/typescript/dist/esm/import.mjs test/helpers/write-fixtures.ts
	SVC_WRITE_FIXTURES=1 npx tap test/unit/protocol/signed-message.test.ts

clean:
	rm -rf dist dist-bench node_modules/.installed
