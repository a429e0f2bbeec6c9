#!/usr/bin/env bash
# backend-ucx between two hosts of the test bed (scripts/testbed.sh; needs root), beside ucx_perftest run
# between the same two namespaces in the same run, same transports (UCX_TLS=tcp UCX_NET_DEVICES=eth0):
# put and get bandwidth, 8-byte put latency, fetch-add latency. Rank 0 / the perftest client on node0,
# rank 1 / the perftest server on node1. Prints one table of BENCH and PERFTEST lines, with the load before
# and after. Each VARIANT (NAME or NAME:VAR=VALUE,VAR=VALUE) runs the unicomm side once with those settings.
#
#   scripts/ucx-bed-bench.sh [--sizes 65536,262144,1048576] [--lat-iters 20000] [--repeat N] [--latency-only] [VARIANT...]
# --repeat N runs the whole round (every variant, then ucx_perftest) N times, so that the rows of a loaded
# host can be read in pairs. --latency-only: only the 8-byte put and fetch-add latencies, each round's unicomm
# rows right beside its perftest rows; the end prints each round's ratios and their median (on this 2-core host
# whole runs of either program fall into a slow mode now and then, so one pair says little).
#   e.g. scripts/ucx-bed-bench.sh now before:UNICOMM_UCX_CALLER_PROGRESS=shared
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
sizes=65536,262144,1048576; lat=20000; repeat=1; variants=(); rows=bw,lat,fadd
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --lat-iters) lat=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --latency-only) rows=lat,fadd; shift ;;
    *) variants+=("$1"); shift ;;
  esac
done
[ ${#variants[@]} -gt 0 ] || variants=(default)
command -v ucx_perftest >/dev/null || { echo "needs ucx_perftest (apt-get install ucx-utils)" >&2; exit 1; }
. scripts/jdk25.sh
cp_file=$(mktemp); trap 'rm -f "$cp_file" "$cp_file.out"' EXIT
if [ -z "${UCX_BENCH_CLASSPATH:-}" ]; then
  ./mvnw -B -ntp -o -q -pl backend-ucx -am test-compile
  ./mvnw -B -ntp -o -q -pl backend-ucx dependency:build-classpath -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test >/dev/null
  # the reactor's own modules from this checkout, not from ~/.m2
  UCX_BENCH_CLASSPATH=$root/backend-ucx/target/test-classes:$root/backend-ucx/target/classes:$(tr ':' '\n' < "$cp_file" \
    | sed -E "s#^.*/dev/unicomm/([^/]+)/[^/]+/[^/]+\.jar\$#$root/\1/target/classes#" | paste -sd:)
fi
bed=ucxb$$; bed=${bed:0:10}
scripts/testbed.sh up 2 --name "$bed" --ttl 1800 --owner $$ >/dev/null
trap 'scripts/testbed.sh down --name "$bed"; rm -f "$cp_file" "$cp_file.out"' EXIT
tls=(UCX_TLS=tcp UCX_NET_DEVICES=eth0)
on() { local h=$1; shift; scripts/testbed.sh exec "node$h" --name "$bed" -- env "${tls[@]}" "$@"; }

perftest() { # TEST SIZE ITERS
  local port=$((30000 + RANDOM % 10000))
  on 1 ucx_perftest -t "$1" -s "$2" -n "$3" -p "$port" >/dev/null 2>&1 & local server=$!
  sleep 1.5
  local line
  line=$(on 0 timeout 120 ucx_perftest 10.77.0.2 -t "$1" -s "$2" -n "$3" -p "$port" 2>&1 | grep -E '^\s*Final:' || echo "(no Final line)")
  kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true
  echo "PERFTEST $1 size=$2 iters=$3 $(echo "$line" | tr -s ' ')"
}

unicomm() { # NAME ENV...
  local name=$1; shift
  local port=$((20000 + RANDOM % 10000)) token; token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  local pids=()
  for r in 0 1; do
    on "$r" env UNICOMM_RANK=$r UNICOMM_WORLD_SIZE=2 UNICOMM_STORE=10.77.0.1:$port UNICOMM_TOKEN="$token" UNICOMM_BACKEND=ucx \
      UNICOMM_HEAP_SIZE=64M UNICOMM_TIMEOUT=120s BED_ROWS=$rows "$@" \
      "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:-UsePerfData -Xmx512m -cp "$UCX_BENCH_CLASSPATH" \
      dev.unicomm.backend.ucx.hosts.BedRmaBench "$name" "$sizes" "$lat" > "/tmp/$bed-rank$r.out" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || { echo "unicomm run '$name' failed:"; cat "/tmp/$bed-rank0.out" "/tmp/$bed-rank1.out"; }
  grep '^BENCH' "/tmp/$bed-rank0.out" || true
  rm -f "/tmp/$bed-rank0.out" "/tmp/$bed-rank1.out"
}

echo "date $(date -u '+%Y-%m-%d %H:%M UTC')  host $(hostname) $(nproc) cores  $(ucx_info -v | head -1 | tr -d '#')"
echo "loadavg before $(cat /proc/loadavg)"
IFS=, read -r -a sz <<< "$sizes"
for ((round = 1; round <= repeat; round++)); do
  echo "round $round of $repeat"
  for v in "${variants[@]}"; do
    name=${v%%:*}; envs=(); [ "$v" != "$name" ] && IFS=, read -r -a envs <<< "${v#*:}"
    unicomm "$name" "${envs[@]}"
  done
  if [ "$rows" != lat,fadd ]; then
    for s in "${sz[@]}"; do perftest ucp_put_bw "$s" $(( s >= 1048576 ? 500 : 2000 )); done
    for s in "${sz[@]}"; do perftest ucp_get "$s" $(( s >= 1048576 ? 500 : 2000 )); done
  fi
  perftest ucp_put_lat 8 "$lat"
  perftest ucp_fadd 8 "$lat"
  echo "loadavg $(cat /proc/loadavg)"
done | tee "$cp_file.out"
# Per round: each variant's p50 divided by the same round's perftest typical; then the median of those ratios.
awk '
  /^round / { r++ }
  /^BENCH .* put_lat8/ { match($0, /typical\(p50\)=[0-9.]+/); v=substr($0, RSTART+13, RLENGTH-13); put[$2, r]=v; names[$2]=1 }
  /^BENCH .* fadd_lat8/ { match($0, /typical\(p50\)=[0-9.]+/); v=substr($0, RSTART+13, RLENGTH-13); fadd[$2, r]=v }
  /^PERFTEST ucp_put_lat/ { for (i = 1; i <= NF; i++) if ($i == "Final:") pput[r]=$(i+2) }
  /^PERFTEST ucp_fadd/ { for (i = 1; i <= NF; i++) if ($i == "Final:") pfadd[r]=$(i+2) }
  function median(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t=a[j]; a[j]=a[j-1]; a[j-1]=t }
    return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
  END { for (nm in names) for (k = 0; k < 2; k++) {
      what = k ? "fetch-add" : "8-byte put"; line = ""; n = 0; met = 0
      for (i = 1; i <= r; i++) { u = k ? fadd[nm, i] : put[nm, i]; p = k ? pfadd[i] : pput[i]
        if (u == "" || p == "" || p == 0) continue; x = u / p; ra[++n] = x; met += (x <= 1.2); line = line sprintf(" %.2f", x) }
      if (n) printf "RATIO %s %s p50 / ucx_perftest typical, per round:%s; median %.2f; <= 1.2 in %d of %d\n", nm, what, line, median(ra, n), met, n } }
' "$cp_file.out"
echo "loadavg after $(cat /proc/loadavg)"
echo "(MB = 2^20 bytes on both sides; PERFTEST columns after 'Final:': iterations, latency typical/avg/overall us, bandwidth avg/overall MB/s, message rate avg/overall)"
