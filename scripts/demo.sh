#!/usr/bin/env bash
# The setops demo: installs missing build dependencies, builds and installs
# setops, starts a throwaway cluster with setops preloaded (the GPU service
# runs, and a GPU shows where there is one; without one the CPU engine
# answers), removed afterwards, also on failure, and runs scripts/demo.sql:
# the multiset operations, counts and Jaccard, a packed column with a GIN
# index and @>, aggregates, and a timing table of intarray beside setops on
# the CPU engine and the GPU (intarray comes with Debian's postgresql-15;
# where it is missing its column says so).  Exit status non-zero on any
# failure, a difference between answers included.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
start=$SECONDS
install_deps
build_install
SETOPS_SERVER_OPTS="-c shared_preload_libraries=setops" start_cluster
psql -X -q -v ON_ERROR_STOP=1 -f scripts/demo.sql
say "demo done in $((SECONDS - start)) s; the cluster is removed"
