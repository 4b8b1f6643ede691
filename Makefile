# The README's two commands. Both install what they need first (scripts/bootstrap.sh).
.PHONY: dev test build bench bench-cluster fuzz chaos cluster lint typecheck bootstrap sdk-types

bootstrap:
	@bash scripts/bootstrap.sh

dev: bootstrap
	@LOG_LEVEL=$${LOG_LEVEL:-warn} node_modules/.bin/tsx scripts/dev.ts

# The checkout as it was before anything ran (expanded when make reads this file, before bootstrap):
# the run must leave it so, and on a fresh clone that is an empty `git status` (scripts/tree-state.sh).
test: export TREE_BEFORE := $(shell bash scripts/tree-state.sh)
test: bootstrap
	@node_modules/.bin/tsx scripts/check-lock.ts
	@node_modules/.bin/tsc --noEmit -p .
	@node_modules/.bin/eslint . --max-warnings 0
	@node_modules/.bin/prettier --check .
	@node_modules/.bin/jest --ci
	@bash scripts/tree-state.sh --unchanged-since "$$TREE_BEFORE"

# The production build: dist/ (compiled JavaScript and the workflow bundle), what the image runs.
build: bootstrap
	@npm run build --silent

# The SDK's request and answer types from the OpenAPI document (sdk/src/generated/api-types.ts).
sdk-types:
	@LOG_LEVEL=$${LOG_LEVEL:-error} node_modules/.bin/tsx scripts/sdk-types.ts

# schemathesis against /openapi.json on a stack of its own (test/fuzz/run.ts); FUZZ_SECONDS bounds it.
fuzz: bootstrap
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-300} node_modules/.bin/tsx test/fuzz/run.ts

# The chaos soak (test/chaos/run.ts): the whole stack as separate processes, agents under load,
# seeded faults, then the invariant checker; rewrites docs/reliability.md. Exits 1 on a violation.
chaos: bootstrap
	@CHAOS_SECONDS=$${CHAOS_SECONDS:-900} node_modules/.bin/tsx test/chaos/run.ts

# Each script writes its figures into this run's own folder; bench/report.ts merges them into
# bench/results/latest.{json,md} and the README. BENCH_QUICK=1: shorter windows, rougher figures.
bench: export BENCH_RESULT_DIR := $(CURDIR)/.cache/bench/run-$(shell date -u +%Y%m%dT%H%M%SZ)
# The runs bench's workers as the image runs them: compiled (built just below), every queue.
bench: export BENCH_WORKER_COMPILED := 1
bench: export BENCH_WORKER_QUEUES := all
ifeq ($(BENCH_QUICK),1)
bench: export BENCH_DURATION_MS := 4000
bench: export BENCH_WARMUP_MS := 1000
bench: export BENCH_TOOLS_DURATION_MS := 3000
bench: export BENCH_TOOLS_ROUNDS := 2
bench: export BENCH_TOOLS_SIZES := 1000
bench: export BENCH_OPS := 500
bench: export BENCH_ROUNDS := 1
bench: export BENCH_LATENCY_RUNS := 20
bench: export BENCH_THROUGHPUT_MS := 5000
bench: export BENCH_CALLBACK_RUNS := 10
bench: export BENCH_GROWTH_MS := 1000
bench: export BENCH_PURCHASE_ROUNDS := 10
bench: export BENCH_STARTUP_ROUNDS := 1
endif
bench: bootstrap
	@npm run build --silent
	@node_modules/.bin/tsx bench/startup.ts
	@node_modules/.bin/tsx bench/run.ts
	@node_modules/.bin/tsx bench/purchase.ts
	@node_modules/.bin/tsx bench/tools.ts
	@node_modules/.bin/tsx bench/jobs.ts
	@node_modules/.bin/tsx bench/schedules.ts
	@node_modules/.bin/tsx bench/runs.ts
	@node_modules/.bin/tsx bench/growth.ts
	@node_modules/.bin/tsx bench/session-amplification.ts
	@node_modules/.bin/tsx bench/mcp-tasks.ts
	@node_modules/.bin/tsx bench/report.ts

# make bench's run and settlement figures on the cluster of make cluster against the dev server,
# both up in one session, as ratios (bench/cluster.ts). Needs the server built (make cluster does).
bench-cluster: bootstrap
	@node_modules/.bin/tsx bench/cluster.ts

# Temporal's production shape (scripts/cluster.ts): the server built once into .cache/bin from the
# Go module proxy (minutes cold), two frontends, two history and two matching hosts, its worker
# service, on PostgreSQL; our API ×2 and workers pointed at it. docs/operations.md.
cluster: bootstrap
	@LOG_LEVEL=$${LOG_LEVEL:-warn} node_modules/.bin/tsx scripts/cluster.ts
