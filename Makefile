# svc: make run (start svcd on the embedded default), make test (install what the tests need and run them all).
SHELL := /bin/bash
NODE_DEPS := node_modules/.installed
APT_PACKAGES := rsync openssl libxml2-utils rpki-client fort-validator octorpki libfaketime
SRC := $(shell find src -name '*.ts' 2>/dev/null)

.PHONY: all run test check build deps system-deps bench fixtures clean

all: build

# npm packages, installed when package.json or the lock file changed (npm ci on a clean clone).
$(NODE_DEPS): package.json package-lock.json
	@if [ -d node_modules ] && [ ! -f $(NODE_DEPS) ]; then npm install --no-audit --no-fund; else npm ci --no-audit --no-fund; fi
	@touch $(NODE_DEPS)

deps: $(NODE_DEPS)

# Debian packages the tests need (relying parties, rsync, xmllint, openssl, libfaketime); apt-get only for what is missing.
system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO="sudo -n"; else echo "need root or sudo to install:$$missing" >&2; exit 1; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null 2>&1 || \
	    { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends $$missing; }; \
	fi

dist/.built: $(NODE_DEPS) $(SRC) tsconfig.json package.json
	@rm -rf dist
	npx tsc -p tsconfig.json
	@chmod +x dist/main.js dist/cli.js
	@touch dist/.built

build: dist/.built

# Start svcd with the embedded default (testbed, embedded repository) in ./data/.
run: build
	node dist/main.js -c config/embedded.toml

check: $(NODE_DEPS)
	npx tsc -p tsconfig.check.json

test: system-deps build check
	TAP_TYPECHECK=1 npx tap

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
