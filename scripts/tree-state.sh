#!/usr/bin/env bash
# Prints a digest of the checkout's state against HEAD: changed and untracked paths and their diff.
# With --unchanged-since DIGEST, fails (listing the changes) when the state differs from DIGEST's:
# `make test` takes one before it runs and checks it after, so a run that rewrites a tracked file
# (package-lock.json by an install, a generated doc) or leaves an untracked one fails, while a
# developer's own uncommitted work is left alone. Outside a git checkout there is nothing to check.
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo none; exit 0; }
state() { git status --porcelain=v1 --untracked-files=all; git diff HEAD --binary; }
digest=$(state | sha256sum | cut -d' ' -f1)
if [ "${1:-}" = --unchanged-since ]; then
  [ "${2:-}" = none ] && exit 0
  if [ "$digest" != "${2:-}" ]; then
    echo "make test changed the checkout (a fresh clone must stay clean: commit the change or stop the run writing it):" >&2
    git status --short >&2
    exit 1
  fi
else
  echo "$digest"
fi
