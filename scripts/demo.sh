#!/usr/bin/env bash
# The setops demo: installs missing build dependencies, builds and installs
# setops, starts a throwaway cluster (removed afterwards, also on failure),
# and shows setops_devices(), the four multiset operations and their pairs
# forms on the DemoSets arrays, and a small CPU/GPU timing table.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
install_deps
build_install
start_cluster
psql -X -q -v ON_ERROR_STOP=1 -f scripts/demo.sql
