# Sourced by build-jobset-e2e.sh and build-lws-e2e.sh (not run on its own): build_module_e2e builds a Go module's
# own e2e tests (one of its packages, at a pinned version) as one test binary, <name>-e2e.test, next to the add-on
# manager that build-addons.sh makes: <cache>/<name>-v<version>/bin/<name>-e2e.test. Nothing is copied into this
# repository: a wrapper module of its own (<cache>/<name>-v<version>/e2e-mod/go.mod) requires the pinned version
# with the module's own requirement list, and `go test -c` compiles the package from the Go module cache
# (`-mod=mod` adds the test-only requirements to the wrapper's go.mod).
#
# Cached: a second run with the same version does nothing. Prints the path of the binary on its last line.
# <NAME>_E2E_FORCE_REBUILD=1 (NAME upper-cased) rebuilds anyway. The compile runs at a lower CPU priority (nice 10).
# Messages name the calling script ($0).

# build_module_e2e <name> <module> <version> <package>, e.g. build_module_e2e lws sigs.k8s.io/lws 0.9.0 test/e2e
build_module_e2e() {
  local name="$1" mod="$2" version="$3" pkg="$4"
  local me root cache dir out stamp want force_var
  me="$(basename "$0")"
  export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
  export CGO_ENABLED=0
  export GOFLAGS="-mod=mod"

  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  cache="${FLEETQ_SANDBOX_CACHE:-$root/.cache/sandbox}"
  dir="$cache/$name-v$version"
  out="$dir/bin/$name-e2e.test"
  stamp="$out.source"
  want="$mod v$version $pkg"
  force_var="${name^^}_E2E_FORCE_REBUILD"
  built() { [ -z "${!force_var:-}" ] && [ -x "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; }
  if built; then
    echo "$out"
    return 0
  fi
  mkdir -p "$dir/bin" "$dir/e2e-mod"
  # One build at a time (a second caller waits for the first and then finds the binary built).
  exec 8>"$dir/.build-e2e.lock"
  if ! flock -n 8; then
    echo "$me: another build of $name-e2e.test is running; waiting for it" >&2
    flock 8
  fi
  if built; then
    echo "$out"
    return 0
  fi

  command -v go >/dev/null || { echo "$me: go is not on PATH (need Go >= 1.26; /usr/local/go/bin?)" >&2; return 1; }
  local upstream_gomod go_directive start
  upstream_gomod="$(GOFLAGS= go mod download -json "$mod@v$version" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
  [ -f "$upstream_gomod" ] || { echo "$me: could not download $mod@v$version" >&2; return 1; }
  go_directive="$(sed -n 's/^go \(.*\)/\1/p' "$upstream_gomod")"
  # The wrapper takes the module's own requirement list (as `require` lines name exact versions, the proxy's
  # version lists are never asked for), so the test compiles against the versions the module tests itself with
  # (for LWS the same ones build-addons.sh's lws-controller resolves to: its build cache is shared).
  {
    printf 'module fleetq.dev/sandbox/%s-e2e\n\ngo %s\n\nrequire %s v%s\n\n' "$name" "$go_directive" "$mod" "$version"
    sed -n '/^require (/,/^)/p' "$upstream_gomod"
  } >"$dir/e2e-mod/go.mod"

  start=$(date +%s)
  cd "$dir/e2e-mod"
  nice -n 10 go test -c -trimpath -ldflags "-s -w" -o "$out.tmp" "$mod/$pkg"
  mv "$out.tmp" "$out"
  echo "$want" >"$stamp"
  echo "$me: built $name-e2e.test in $(( $(date +%s) - start ))s" >&2
  echo "$out"
}
