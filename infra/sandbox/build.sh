#!/usr/bin/env bash
# Builds the local control plane from Go modules: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl (k8s.io/kubernetes at K8S_VERSION) and kwok (sigs.k8s.io/kwok at KWOK_VERSION).
# Binaries are cached in .cache/sandbox/<versions>/bin (gitignored); a second run with the same
# versions does nothing. Prints the directory holding the binaries on its last line.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.2}"
KWOK_VERSION="${KWOK_VERSION:-0.8.0}"
# k8s 1.37 declares `go 1.26.0`; a newer line (1.38) needs GOTOOLCHAIN=go1.27.x, which the Go proxy serves.
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
export CGO_ENABLED=0
export GOFLAGS="-mod=mod"

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${FLEETQ_SANDBOX_CACHE:-$root/.cache/sandbox}"
dir="$cache/k8s-v$K8S_VERSION-kwok-v$KWOK_VERSION"
bin="$dir/bin"
binaries=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)

stages="$dir/stages"
# kwok's own stock stages that the sandbox loads (fleetq adds infra/sandbox/stages/pod-outcome.yaml).
kwok_stages=(node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml pod/fast/pod-ready.yaml pod/fast/pod-delete.yaml)
have_all() {
  for b in "${binaries[@]}"; do [ -x "$bin/$b" ] || return 1; done
  for s in "${kwok_stages[@]}"; do [ -f "$stages/$(basename "$s")" ] || return 1; done
}
if have_all; then echo "$bin"; exit 0; fi
# One build at a time per cache: a second caller (a test's global setup while CI's own build runs) waits for the
# first and then finds everything built, instead of compiling the same binaries into the same files at once.
mkdir -p "$dir"
exec 9>"$dir/.build.lock"
if ! flock -n 9; then
  echo "build.sh: another build of $dir is running; waiting for it" >&2
  flock 9
fi
if have_all; then echo "$bin"; exit 0; fi

command -v go >/dev/null || { echo "build.sh: go is not on PATH (need Go >= 1.26; /usr/local/go/bin?)" >&2; exit 1; }
start=$(date +%s)
mkdir -p "$bin" "$dir/k8s" "$dir/kwok"

# --- kubernetes: a wrapper module that requires k8s.io/kubernetes and maps every staging module ---
# The published k8s.io/kubernetes go.mod requires its staging modules at v0.0.0 and its own
# `replace => ./staging/...` lines do not apply to a dependent module, so we generate one replace per
# staging module to its published v0.<minor>.<patch>.
minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
patch="${K8S_VERSION##*.}"
staging_version="v0.$minor.$patch"
gomod_json="$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION")"
upstream_gomod="$(printf '%s' "$gomod_json" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
[ -f "$upstream_gomod" ] || { echo "build.sh: could not download k8s.io/kubernetes@v$K8S_VERSION" >&2; exit 1; }
go_directive="$(sed -n 's/^go \(.*\)/\1/p' "$upstream_gomod")"
godebug="$(sed -n 's/^godebug \(.*\)/\1/p' "$upstream_gomod")"
mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/.*#\1#p' "$upstream_gomod" | sort -u)
{
  echo "module fleetq.dev/sandbox/k8s"
  echo
  echo "go $go_directive"
  [ -n "$godebug" ] && echo "godebug $godebug"
  echo
  echo "require k8s.io/kubernetes v$K8S_VERSION"
  echo
  echo "replace ("
  for m in "${staging[@]}"; do echo "	$m => $m $staging_version"; done
  echo ")"
} > "$dir/k8s/go.mod"
echo "build.sh: k8s v$K8S_VERSION, ${#staging[@]} staging replaces at $staging_version, go $go_directive" >&2

ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
cd "$dir/k8s"
for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  [ -x "$bin/$cmd" ] && continue
  t=$(date +%s)
  go build -trimpath -ldflags "$ldflags" -o "$bin/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd"
  mv "$bin/$cmd.tmp" "$bin/$cmd"
  echo "build.sh: built $cmd in $(( $(date +%s) - t ))s" >&2
done
# etcd: the server module is a main package; build the version k8s.io/kubernetes itself requires,
# so its client and server agree.
if [ ! -x "$bin/etcd" ]; then
  t=$(date +%s)
  go build -trimpath -ldflags "-s -w" -o "$bin/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$bin/etcd.tmp" "$bin/etcd"
  echo "build.sh: built etcd in $(( $(date +%s) - t ))s" >&2
fi

# --- kwok: its own module (no replaces), so `go install` works ---
if [ ! -x "$bin/kwok" ]; then
  t=$(date +%s)
  GOFLAGS= GOBIN="$dir/kwok" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_VERSION"
  mv "$dir/kwok/kwok" "$bin/kwok"
  echo "build.sh: built kwok in $(( $(date +%s) - t ))s" >&2
fi

if [ ! -f "$stages/pod-delete.yaml" ]; then
  kwok_src="$(GOFLAGS= go mod download -json "sigs.k8s.io/kwok@v$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')"
  mkdir -p "$stages"
  for s in "${kwok_stages[@]}"; do cp "$kwok_src/kustomize/stage/$s" "$stages/"; done
fi

have_all || { echo "build.sh: some binaries are missing in $bin" >&2; exit 1; }
echo "build.sh: sandbox binaries ready in $(( $(date +%s) - start ))s (cold build)" >&2
echo "$bin"
