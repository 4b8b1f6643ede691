# The README's two commands. Both install what they need first (scripts/bootstrap.sh).
.PHONY: dev test bench lint typecheck bootstrap

bootstrap:
	@bash scripts/bootstrap.sh

dev: bootstrap
	@LOG_LEVEL=$${LOG_LEVEL:-warn} node_modules/.bin/tsx scripts/dev.ts

test: bootstrap
	@node_modules/.bin/tsc --noEmit -p .
	@node_modules/.bin/eslint . --max-warnings 0
	@node_modules/.bin/jest --ci

bench: bootstrap
	@node_modules/.bin/tsx bench/run.ts
	@node_modules/.bin/tsx bench/purchase.ts
	@node_modules/.bin/tsx bench/tools.ts
	@node_modules/.bin/tsx bench/jobs.ts
	@node_modules/.bin/tsx bench/schedules.ts
	@node_modules/.bin/tsx bench/runs.ts
