#!/usr/bin/env bash
# Builds LeaderWorkerSet's own e2e tests (the test/e2e package of sigs.k8s.io/lws at LWS_VERSION) as one test
# binary, lws-e2e.test, next to the LWS manager that build-addons.sh makes: <cache>/lws-v<version>/bin/lws-e2e.test
# (build-module-e2e.sh: the wrapper module, the cache, the lock). The package's disaggregatedset/ subpackage is a
# suite of its own and is not built.
#
# Cached: a second run with the same version does nothing. Prints the path of the binary on its last line.
# Set LWS_E2E_FORCE_REBUILD=1 to rebuild anyway. The compile runs at a lower CPU priority (nice 10).
set -euo pipefail

LWS_VERSION="${LWS_VERSION:-0.9.0}"
# shellcheck source=build-module-e2e.sh
source "$(dirname "$0")/build-module-e2e.sh"
build_module_e2e lws sigs.k8s.io/lws "$LWS_VERSION" test/e2e
