#!/usr/bin/env bash
# test/bench/load_variants.sh: the GPU service's settings side by side under load.
# AB_VARIANTS="name:-c,setting=value,... ..." bash test/bench/load_variants.sh
# starts a cluster (.pgb/pg-start.sh) per variant with those settings and runs
# load_bench.sh quick in gpu mode on 20k and 1M rows at 64 clients; logs under $OUT.
set -u
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
for v in $AB_VARIANTS; do
  name=${v%%:*}; opts=$(echo "${v#*:}" | tr ',' ' ')
  echo "==== $name ($opts)"
  export PGB_SERVER_OPTS="-c shared_preload_libraries=setops -c max_connections=300 $opts"
  source .pgb/pg-start.sh >/dev/null || exit 1
  psql -XAtq -c 'CREATE EXTENSION IF NOT EXISTS setops' -c 'SELECT count(*) FROM setops_devices()' >/dev/null
  LOAD_BENCH_MODES=gpu LOAD_BENCH_SIZES="20k 1M" LOAD_BENCH_CLIENTS=64 \
    OUT=$OUT/$name bash test/bench/load_bench.sh quick > $OUT/$name.log 2>&1
  awk -F'\t' 'NR>1 {printf "%s %s gpus=%s tps=%s tx/4=%.0f p50=%s p99=%s host_busy=%s service_cores=%s dispatch_busy=%s per_launch=%s\n",$1,$2,$4,$6,$10/4,$7,$8,$12,$13,$14,$15}' $OUT/$name/load_bench.tsv
done
