#!/usr/bin/env bash
# Builds JobSet's own e2e tests (the test/e2e package of sigs.k8s.io/jobset at JOBSET_VERSION) as one test
# binary, jobset-e2e.test, next to the JobSet manager that build-addons.sh makes:
# <cache>/jobset-v<version>/bin/jobset-e2e.test (build-module-e2e.sh: the wrapper module, the cache, the lock).
#
# Cached: a second run with the same version does nothing. Prints the path of the binary on its last line.
# Set JOBSET_E2E_FORCE_REBUILD=1 to rebuild anyway. The compile runs at a lower CPU priority (nice 10).
set -euo pipefail

JOBSET_VERSION="${JOBSET_VERSION:-0.12.0}"
# shellcheck source=build-module-e2e.sh
source "$(dirname "$0")/build-module-e2e.sh"
build_module_e2e jobset sigs.k8s.io/jobset "$JOBSET_VERSION" test/e2e
