# One entry point for a newcomer: `make run` and `make test`. Each installs what it needs in .venv.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install lock test lint template typecheck unit suite coverage bench bench-engines build run sweep openapi regen rng-report clean \
	sam-local sam-local-test checks

# SAM CLI (template checks, the build test): no telemetry.
export SAM_CLI_TELEMETRY := 0

# pip (SAM's build calls it) and uv, pinned: uv installs the extras below (10.7 s on a clean clone
# with a cold cache here, against 126 s for pip, the same versions).
$(BIN)/python:
	$(PY) -m venv $(VENV)

$(BIN)/uv: | $(BIN)/python
	$(BIN)/pip install --quiet pip==26.3 uv==0.13.9

# Every version pinned by infra/constraints.txt (`make lock` rewrites it): a clean clone installs
# what the suite last passed with, whatever PyPI released since.
INSTALL := $(BIN)/uv pip install --quiet --python $(BIN)/python -c infra/constraints.txt

# The dev extra (every tier, the gates, the tools) includes the test extra.
$(STAMP): pyproject.toml infra/constraints.txt | $(BIN)/uv
	$(INSTALL) -e '.[dev]'
	touch $(STAMP) $(TEST_STAMP)

install: $(STAMP)

# The test extra only (pytest, xdist, Hypothesis, cryptography …): all `make unit` needs, so its
# first run on a fresh clone installs that and not the dev extra (moto, the SAM CLI, SciPy …).
TEST_STAMP := $(VENV)/.installed-test
$(TEST_STAMP): pyproject.toml infra/constraints.txt | $(BIN)/uv
	$(INSTALL) -e '.[test]'
	touch $(TEST_STAMP)

# The rng extra (NumPy, SciPy, Matplotlib) on top of dev: only `make rng-report` needs it.
RNG_STAMP := $(VENV)/.installed-rng
$(RNG_STAMP): pyproject.toml infra/constraints.txt | $(STAMP)
	$(INSTALL) -e '.[dev,rng]'
	touch $(RNG_STAMP)

# infra/constraints.txt anew: the dev and rng extras resolved by pip in a fresh venv, frozen
# (its header kept). Then `make test`, and commit the file with what needed the change.
LOCK_VENV := $(VENV)-lock
lock:
	rm -rf $(LOCK_VENV) && $(PY) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet pip==26.3
	$(LOCK_VENV)/bin/pip install --quiet -e '.[dev,rng]'
	{ grep '^#' infra/constraints.txt; $(LOCK_VENV)/bin/pip freeze --exclude-editable; } > infra/constraints.new
	mv infra/constraints.new infra/constraints.txt && rm -rf $(LOCK_VENV)

# Style, format, and the complexity gate (radon: no block worse than C, module averages B at
# worst, A overall; baccarat_dev/complexity.py).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m baccarat_dev.complexity
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# The fast tier (tests/unit: the pure core, every use case over the in-memory repository, the
# import rules) without its slow statistical and oracle tests (marker `slow`; the suite runs
# them), Hypothesis profile dev unless HYPOTHESIS_PROFILE says otherwise: seconds.
unit: $(TEST_STAMP)
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-dev} $(BIN)/pytest -n 2 -m "unit and not slow" tests/unit

# Every tier (unit, integration, infra, live), thorough Hypothesis profile, the browser, DynamoDB
# Local and the TypeScript client's npm packages (clients/typescript, `npm ci` once) required.
# Without coverage measurement (its tracing slows the in-process tiers; `make coverage` runs this
# same suite measured). Files go to the 2 workers
# heaviest first (tests/support/ordering.py, tests/file_durations.json), not in xdist's order by
# test count, which left a one-minute live file for the end and the other worker idle. It prints its
# 30 slowest tests: where the 20-minute budget of `make test` goes.
suite: $(STAMP)
	scripts/ensure-chromium.sh
	scripts/ensure-dynamodb-local.sh >/dev/null
	scripts/ensure-typescript-client.sh >/dev/null
	HYPOTHESIS_PROFILE=ci BACC_REQUIRE_BROWSER=1 BACC_REQUIRE_DYNAMODB_LOCAL=1 BACC_REQUIRE_TS_CLIENT=1 \
		$(BIN)/pytest -n 2 --dist loadfile --no-loadscope-reorder -m "not sam_local" --durations=30 $(SUITE_ARGS)

# The suite above with the statement coverage of shared/ and functions/ (pytest-cov,
# [tool.coverage] in pyproject.toml; `.venv/bin/coverage report` then lists it by file).
coverage: $(STAMP)
	$(MAKE) --no-print-directory suite SUITE_ARGS="--cov --cov-report="
	@echo "coverage of shared/ and functions/ by the suite: $$($(BIN)/coverage report --format=total)%"

# template.yaml: CloudFormation lint and SAM's own validation (no AWS account needed).
template: $(STAMP)
	$(BIN)/cfn-lint template.yaml
	$(BIN)/sam validate --lint --template-file template.yaml --region us-east-1

# The static checks (lint, template, typecheck: ~40 s of one core) run beside the suite, not
# before it (its live tier waits on timers much of the time); their output follows the suite's.
STATIC_LOG := $(VENV)/static-checks.log
checks: $(STAMP)
	@$(MAKE) --no-print-directory lint template typecheck >$(STATIC_LOG) 2>&1 & static=$$!; \
	$(MAKE) --no-print-directory suite; suite=$$?; \
	wait $$static; staticrc=$$?; \
	echo "--- make lint template typecheck (exit $$staticrc; $(STATIC_LOG)):"; cat $(STATIC_LOG); \
	[[ $$suite == 0 && $$staticrc == 0 ]]

# Everything: the install, the checks and every tier above, and next to them (in the background,
# its output in .venv/sam-local-test.log, shown at the end) `make sam-local-test`. Fails if either
# fails; prints when it started and ended and how long it took, pass or fail.
SAM_LOCAL_LOG := $(VENV)/sam-local-test.log
test:
	@start=$$(date +%s); echo "make test: started $$(date -u '+%F %T') UTC"; \
	$(MAKE) --no-print-directory install; installed=$$?; \
	if [[ $$installed == 0 ]]; then \
		echo "make test: sam-local-test runs in the background (log: $(SAM_LOCAL_LOG))"; \
		nice -n 19 $(MAKE) --no-print-directory sam-local-test >$(SAM_LOCAL_LOG) 2>&1 & sam=$$!; \
		$(MAKE) --no-print-directory checks; checks=$$?; \
		wait $$sam; samrc=$$?; \
		echo "--- make sam-local-test (exit $$samrc; $(SAM_LOCAL_LOG)):"; tail -n 40 $(SAM_LOCAL_LOG); \
	else checks=skipped; samrc=skipped; fi; \
	took=$$(( $$(date +%s) - start )); \
	echo "make test: install exit $$installed, checks exit $$checks, sam-local-test exit $$samrc"; \
	echo "make test: ended $$(date -u '+%F %T') UTC, took $$((took / 60)) min $$((took % 60)) s"; \
	[[ $$installed == 0 && $$checks == 0 && $$samrc == 0 ]]

# docs/sam-local.md for real (tests/sam_local): Docker (scripts/ensure-docker.sh installs and
# starts it when it is missing, as root), the images (scripts/sam-local-images.sh: AWS's when
# their registries answer, else stand-ins built here once per machine and cached), the engines in
# containers, `sam local invoke` of every event and `sam local start-api` with a whole shoe
# played by examples/play_shoe.py. Minutes; make test runs it next to the other tiers.
sam-local-test: $(STAMP)
	scripts/ensure-docker.sh
	$(BIN)/pytest -n 0 -p no:randomly -rP -m sam_local tests/sam_local

# Needs the rng extra for its plots (benchmarks/out/bet_behind.svg, matplotlib) and DynamoDB
# Local (the bet-behind section; `$(BIN)/python -m benchmarks.bet_behind` runs it alone).
bench: $(RNG_STAMP)
	scripts/ensure-dynamodb-local.sh >/dev/null
	$(BIN)/python -m benchmarks

# The DynamoDB engines, figures only: DynamoDB Local vs moto in one run (start-up, per-call
# latency, RSS over 5,000 deals + 5,000 settlements: benchmarks/dynamodb_engines.py), then
# `make run` itself on DynamoDB Local under 6,000 requests — RSS of the API process and of java
# before, along the way and after (benchmarks/make_run_memory.py; BACKEND=moto make bench-engines
# runs that part on moto: keep REQUESTS small there). A few minutes; moto's server passes 3 GiB.
REQUESTS ?= 6000
bench-engines: $(STAMP)
	scripts/ensure-dynamodb-local.sh >/dev/null
	$(BIN)/python -m benchmarks.dynamodb_engines
	$(BIN)/python -m benchmarks.make_run_memory $(REQUESTS)

# The deployable artifacts (.aws-sam/build; arm64 unless ARCH=x86_64), slimmed for cold starts:
# bytecode compiled once (Lambda's code is read-only: without it every cold start compiles every
# module), unused botocore models removed (scripts/slim_build.py). Then `sam deploy`.
ARCH ?= arm64
build: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/sam build --config-file infra/samconfig.toml \
		--parameter-overrides Architecture=$(ARCH)
	$(BIN)/python scripts/slim_build.py .aws-sam/build

# `sam local` on a machine with Docker (docs/sam-local.md): the `sam local invoke` line of every
# event (events/) of every function, with infra/sam-local-env.json, for ARCH (export it as the
# recipe does; default arm64, like `make build`). Fails when a function, route or job of
# template.yaml has no event, or the env file does not name exactly each function's variables.
sam-local: $(STAMP)
	$(BIN)/baccarat sam-local commands --arch $(ARCH)

# The whole API on http://127.0.0.1:8000 over DynamoDB Local (Amazon's engine; fetched once into
# .venv/ by scripts/ensure-dynamodb-local.sh, run with Java >= 17) and moto's server for KMS;
# without Java, or with BACKEND=moto, over moto for both. Ctrl-C (or SIGTERM) stops everything.
# BACCARAT_STACK=<deployed stack> make run serves the same app against that stack instead.
run: $(STAMP)
	@if [[ "$${BACKEND:-}" != moto && -z "$${BACCARAT_STACK:-}" ]]; then \
		ALLOW_NO_DYNAMODB_LOCAL=1 scripts/ensure-dynamodb-local.sh >/dev/null; fi
	$(BIN)/python -m baccarat_dev.local --demo-tables

# One auto-settlement sweep (what AutoSettleFunction does every minute in AWS; make run also
# sweeps every minute): rounds whose locked bets are past the table's deadline get settled.
# Against make run: AWS_ENDPOINT_URL=<the DynamoDB URL its banner prints> make sweep; against a
# stack: BACCARAT_STACK=<stack> make sweep. Extra flags: make sweep ARGS="--json".
sweep: $(STAMP)
	$(BIN)/python -m baccarat_api.jobs.sweep $(ARGS)

# docs/rng-report.md and its figures docs/rng/*.png, from scratch: the statistical evidence about
# the production shuffle and stream. Not part of `make test` (which runs the fixed-seed
# subset, tests/unit/test_rng_evidence.py). 5–25 minutes here, by load (10 min of CPU on 2
# workers, 3 of them bacc-pf-v2's shoes).
rng-report: $(RNG_STAMP)
	$(BIN)/python -m baccarat_dev.rng

# Regenerate docs/openapi.json from the app (a test fails when it is stale).
openapi: $(STAMP)
	$(BIN)/python -m baccarat_dev.openapi

# Everything generated from the contract: docs/openapi.json, then the TypeScript client's types
# (clients/typescript/src/generated/openapi.ts), then web/push.js (built from the client's
# src/push.ts); and web/drand.js (the browser's BLS check, scripts/build-web-drand.sh). Tests
# fail while any is stale.
regen: openapi
	scripts/ensure-typescript-client.sh >/dev/null
	cd clients/typescript && npm run --silent generate
	cd clients/typescript && npm run --silent build-push
	scripts/build-web-drand.sh

clean:
	rm -rf $(VENV) .aws-sam .pytest_cache .mypy_cache .ruff_cache clients/typescript/node_modules
