#!/bin/bash
# The README's headline figures (Benchmarks, "where the issues' targets stand") in one sitting:
# whole `coflowopt` processes under /usr/bin/time, one line each (wall, user, sys, peak, value,
# the command's own stage timings).  Run on a quiet machine from the repository root:
#     bash experiments/headline_sitting.sh [WORKDIR]    (default: experiments/results/sitting)
# It generates Custom-4000 and the 50,000-coflow instance into WORKDIR when they are missing.
set -u
FB=${FB:-../shared/data/FB2010-1Hr-150-0.txt}
W=${1:-experiments/results/sitting}
mkdir -p "$W"
C4=$W/c4000.json; U50=$W/u50000.json
[ -f "$C4" ] || coflowopt generate facebook_like -p trace_path="$FB" -p num_coflows=4000 \
    -p load=0.9 --seed 0 -o "$C4" >&2
[ -f "$U50" ] || coflowopt generate uniform_random -p num_ports=150 -p num_coflows=50000 \
    --seed 0 -o "$U50" >&2
# peak: /usr/bin/time's %M is KiB, printed as 10^9 bytes (until 2026-11-28 it printed %M / 10^6,
# 2.4 % low: the peaks in experiments/results/headline_sitting.txt are in that unit)
run() {  # name, arguments of coflowopt
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$W/time" coflowopt "$@" --json 2>"$W/err" >"$W/out.json"
  local rc=$?
  python - "$name" "$rc" "$W" <<'PY'
import json, sys
name, rc, w = sys.argv[1:]
W_, U, S, M = open(f"{w}/time").read().split()[-4:]
try:
    d = json.load(open(f"{w}/out.json"))
    ts = " ".join(f"{k} {v:.2f}" for k, v in d.get("timings", {}).items())
    print(f"{name:24s} rc {rc} wall {W_} s user {U} s sys {S} s peak {int(M) * 1024 / 1e9:.2f} GB | "
          f"{d.get('kind')} {d.get('value'):,.2f} | {ts}")
except Exception as e:  # a failed run: say so, keep going
    print(f"{name:24s} rc {rc} wall {W_} s user {U} s peak {int(M) * 1024 / 1e9:.2f} GB | no JSON ({e})")
PY
}
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) $(uptime)"
# the ahead-of-time kernel module (python -m coflowopt._aot build) changes the SEBF + MADD and
# BSSI + greedy lines' start-up: say whether it was built and current
echo "# ahead-of-time kernels: $(python -m coflowopt._aot status 2>&1)"
run fb-sebf+madd schedule "$FB" --order sebf --rates madd
run fb-sebf+madd schedule "$FB" --order sebf --rates madd
run fb-bssi+greedy-at0 schedule "$FB" --zero-release --order bssi --rates greedy
run fb-bssi+greedy-at0 schedule "$FB" --zero-release --order bssi --rates greedy
run fb-varys schedule "$FB" --policy varys
run fb-fair schedule "$FB" --policy fair
for i in 1 2 3; do run ft16-bssi+greedy-at0 schedule "$FB" --topology fat-tree:k=16 \
    --placement random --zero-release --order bssi --rates greedy; done
for i in 1 2; do run ft16-sebf+madd schedule "$FB" --topology fat-tree:k=16 \
    --placement random --order sebf --rates madd; done
for i in 1 2; do run c4000-bssi+greedy-at0 schedule "$C4" --zero-release --order bssi \
    --rates greedy; done
run u50k-sebf+madd schedule "$U50" --order sebf --rates madd
run u50k-varys schedule "$U50" --policy varys
echo "# end $(date -u +%FT%TZ) $(uptime)"
