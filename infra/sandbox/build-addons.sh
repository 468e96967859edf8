#!/usr/bin/env bash
# Builds the add-on upstream controllers the sandbox runs next to kube-controller-manager on upstream-mode
# clusters (infra/sandbox/kind-options.ts ADD_ON_COMMANDS), from their Go modules at pinned versions:
#   jobset-controller   sigs.k8s.io/jobset at JOBSET_VERSION (its manager is the module's root package)
#   lws-controller      sigs.k8s.io/lws at LWS_VERSION (its manager is sigs.k8s.io/lws/cmd)
# Usage: build-addons.sh [name...]  (default: all). Each binary is cached in
# <cache>/<module>-v<version>/bin/<name> (gitignored); a second run with the same versions does nothing.
# Prints one line per add-on, `<name> <path of its binary>`, in the order asked.
set -euo pipefail

JOBSET_VERSION="${JOBSET_VERSION:-0.12.0}"
LWS_VERSION="${LWS_VERSION:-0.9.0}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
export CGO_ENABLED=0
export GOFLAGS="-mod=mod"

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${FLEETQ_SANDBOX_CACHE:-$root/.cache/sandbox}"

# name -> "module version main-package ldflags"
declare -A module version package ldflags
module[jobset-controller]="sigs.k8s.io/jobset"
version[jobset-controller]="$JOBSET_VERSION"
package[jobset-controller]="sigs.k8s.io/jobset"
ldflags[jobset-controller]="-X sigs.k8s.io/jobset/pkg/version.GitVersion=v$JOBSET_VERSION"
module[lws-controller]="sigs.k8s.io/lws"
version[lws-controller]="$LWS_VERSION"
package[lws-controller]="sigs.k8s.io/lws/cmd"
ldflags[lws-controller]="-X sigs.k8s.io/lws/pkg/version.GitVersion=v$LWS_VERSION"

names=("$@")
[ ${#names[@]} -eq 0 ] && names=("${!module[@]}")

build_one() {
  local name="$1"
  [ -n "${module[$name]:-}" ] || { echo "build-addons.sh: no add-on named $name (known: ${!module[*]})" >&2; return 1; }
  local mod="${module[$name]}" ver="${version[$name]}"
  local dir="$cache/${mod##*/}-v$ver"
  local out="$dir/bin/$name"
  if [ -x "$out" ]; then echo "$name $out"; return 0; fi
  mkdir -p "$dir/bin" "$dir/mod"
  # One build at a time per add-on and version (a test's `up` may ask while CI's own build runs).
  exec 9>"$dir/.build.lock"
  if ! flock -n 9; then
    echo "build-addons.sh: another build of $dir is running; waiting for it" >&2
    flock 9
  fi
  if [ -x "$out" ]; then exec 9>&-; echo "$name $out"; return 0; fi
  command -v go >/dev/null || { echo "build-addons.sh: go is not on PATH (need Go >= 1.26; /usr/local/go/bin?)" >&2; return 1; }
  # A wrapper module of its own: `go install m@v` asks the proxy for the module's version list (for deprecations),
  # which a proxy serving only the pinned version refuses; a require line names the version and needs no list.
  # Its own module keeps the add-on's dependency versions apart from every other build.
  local upstream_gomod go_directive
  upstream_gomod="$(GOFLAGS= go mod download -json "$mod@v$ver" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
  [ -f "$upstream_gomod" ] || { echo "build-addons.sh: could not download $mod@v$ver" >&2; return 1; }
  go_directive="$(sed -n 's/^go \(.*\)/\1/p' "$upstream_gomod")"
  printf 'module fleetq.dev/sandbox/%s\n\ngo %s\n\nrequire %s v%s\n' "$name" "$go_directive" "$mod" "$ver" >"$dir/mod/go.mod"
  local t
  t=$(date +%s)
  (cd "$dir/mod" && go build -trimpath -ldflags "-s -w ${ldflags[$name]}" -o "$out.tmp" "${package[$name]}")
  mv "$out.tmp" "$out"
  echo "build-addons.sh: built $name ($mod v$ver) in $(( $(date +%s) - t ))s (cold build)" >&2
  exec 9>&-
  echo "$name $out"
}

for n in "${names[@]}"; do build_one "$n"; done
