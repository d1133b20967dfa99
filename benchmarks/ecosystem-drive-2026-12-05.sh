#!/bin/sh
# The ecosystem driver of 2026-12-05 (docs/precision.md): extend every boundary's stores
# from top 300, staged so every boundary and corpus reaches each size before any goes
# further; each call resumes the stored runs. It was stopped once the newest corpus had
# reached 600 and the day-before corpus 450. Run from the repository root.
E="python benchmarks/ecosystem.py --out ${SAPPER_ECOSYSTEM_DIR:-/work/eco} run --nice 19"
for top in 450 600 800 1000; do
  $E --corpus newest --top "$top"
  $E --corpus before --top "$top"
done
