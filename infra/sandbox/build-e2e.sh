#!/usr/bin/env bash
# Builds Kubernetes' own e2e tests as one binary, e2e.test, at the sandbox's pinned version
# (K8S_VERSION), next to the sandbox binaries: <cache>/k8s-v<K8S>-kwok-v<KWOK>/bin/e2e.test.
#
# It reuses what infra/sandbox/build.sh made: the same module cache and the same generated wrapper
# module (<cache>/.../k8s/go.mod, with one replace per staging module). The test main is
# test/upstream-e2e/suite/suite_test.go, copied into that module as the package ./fleetq-e2e; it
# links only test/e2e/apps, kubectl and apimachinery (the specs the gate focuses on), not the whole
# of test/e2e. `go test -c -mod=mod` adds the test-only requirements to the wrapper's go.mod.
#
# Cached: a second run with the same versions and the same suite source does nothing. Prints the
# path of e2e.test on its last line. Set E2E_FORCE_REBUILD=1 to rebuild anyway.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.2}"
KWOK_VERSION="${KWOK_VERSION:-0.8.0}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
export CGO_ENABLED=0
export GOFLAGS="-mod=mod"

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
suite_src="$root/test/upstream-e2e/suite/suite_test.go"

# The sandbox binaries and the wrapper module first (a no-op when they are cached).
bin="$(bash "$here/build.sh" | tail -n 1)"
dir="$(dirname "$bin")"
[ -f "$dir/k8s/go.mod" ] || { echo "build-e2e.sh: no wrapper module at $dir/k8s (build.sh output: $bin)" >&2; exit 1; }

out="$bin/e2e.test"
stamp="$bin/e2e.test.source"
want="k8s v$K8S_VERSION $(sha256sum "$suite_src" | cut -d' ' -f1)"
built() { [ -z "${E2E_FORCE_REBUILD:-}" ] && [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; }
if built; then
  echo "$out"
  exit 0
fi
# One build at a time (as build.sh): a second caller waits for the first and then finds e2e.test built.
exec 8>"$dir/.build-e2e.lock"
if ! flock -n 8; then
  echo "build-e2e.sh: another build of e2e.test is running; waiting for it" >&2
  flock 8
fi
if built; then
  echo "$out"
  exit 0
fi

command -v go >/dev/null || { echo "build-e2e.sh: go is not on PATH (need Go >= 1.26; /usr/local/go/bin?)" >&2; exit 1; }
start=$(date +%s)
pkg="$dir/k8s/fleetq-e2e"
mkdir -p "$pkg"
cp "$suite_src" "$pkg/suite_test.go"

minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
cd "$dir/k8s"
go test -c -trimpath -ldflags "$ldflags" -o "$out.tmp" ./fleetq-e2e
mv "$out.tmp" "$out"
echo "$want" > "$stamp"
echo "build-e2e.sh: built e2e.test in $(( $(date +%s) - start ))s" >&2
echo "$out"
