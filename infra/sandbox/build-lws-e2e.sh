#!/usr/bin/env bash
# Builds LeaderWorkerSet's own e2e tests (the test/e2e package of sigs.k8s.io/lws at LWS_VERSION) as one test
# binary, lws-e2e.test, next to the LWS manager that build-addons.sh makes:
# <cache>/lws-v<version>/bin/lws-e2e.test. Nothing is copied into this repository: a wrapper module of its own
# (<cache>/lws-v<version>/e2e-mod/go.mod) requires the pinned version with the module's own requirement list, and
# `go test -c` compiles the module's package from the Go module cache (`-mod=mod` adds the test-only requirements
# to the wrapper's go.mod). The package's disaggregatedset/ subpackage is a suite of its own and is not built.
#
# Cached: a second run with the same version does nothing. Prints the path of the binary on its last line.
# Set LWS_E2E_FORCE_REBUILD=1 to rebuild anyway. The compile runs at a lower CPU priority (nice 10).
set -euo pipefail

LWS_VERSION="${LWS_VERSION:-0.9.0}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
export CGO_ENABLED=0
export GOFLAGS="-mod=mod"

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${FLEETQ_SANDBOX_CACHE:-$root/.cache/sandbox}"
mod="sigs.k8s.io/lws"
dir="$cache/lws-v$LWS_VERSION"
out="$dir/bin/lws-e2e.test"
stamp="$out.source"
want="$mod v$LWS_VERSION test/e2e"
built() { [ -z "${LWS_E2E_FORCE_REBUILD:-}" ] && [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; }
if built; then
  echo "$out"
  exit 0
fi
mkdir -p "$dir/bin" "$dir/e2e-mod"
# One build at a time (a second caller waits for the first and then finds the binary built).
exec 8>"$dir/.build-e2e.lock"
if ! flock -n 8; then
  echo "build-lws-e2e.sh: another build of lws-e2e.test is running; waiting for it" >&2
  flock 8
fi
if built; then
  echo "$out"
  exit 0
fi

command -v go >/dev/null || { echo "build-lws-e2e.sh: go is not on PATH (need Go >= 1.26; /usr/local/go/bin?)" >&2; exit 1; }
upstream_gomod="$(GOFLAGS= go mod download -json "$mod@v$LWS_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
[ -f "$upstream_gomod" ] || { echo "build-lws-e2e.sh: could not download $mod@v$LWS_VERSION" >&2; exit 1; }
go_directive="$(sed -n 's/^go \(.*\)/\1/p' "$upstream_gomod")"
# The wrapper takes the module's own requirement list (as `require` lines name exact versions, the proxy's
# version lists are never asked for), so the test compiles against the versions LWS tests itself with, the same
# ones build-addons.sh's lws-controller resolves to (its build cache is shared).
{
  printf 'module fleetq.dev/sandbox/lws-e2e\n\ngo %s\n\nrequire %s v%s\n\n' "$go_directive" "$mod" "$LWS_VERSION"
  sed -n '/^require (/,/^)/p' "$upstream_gomod"
} >"$dir/e2e-mod/go.mod"

start=$(date +%s)
cd "$dir/e2e-mod"
nice -n 10 go test -c -trimpath -ldflags "-s -w" -o "$out.tmp" "$mod/test/e2e"
mv "$out.tmp" "$out"
echo "$want" >"$stamp"
echo "build-lws-e2e.sh: built lws-e2e.test in $(( $(date +%s) - start ))s" >&2
echo "$out"
