#!/bin/sh
# The ecosystem driver of 2026-12-05, second run (docs/precision.md, "Newest releases of the
# top 1,000"): every boundary's newest corpus from top 600 to 800, then to 1000, each stage
# reaching every boundary before the next; then the day-before corpus 600 -> 800 -> 1000.
# It was stopped once the newest corpus had reached 1000 at all six boundaries (the
# day-before stages did not start). Each call resumes the stored runs. Run from the
# repository root.
E="python benchmarks/ecosystem.py --out ${SAPPER_ECOSYSTEM_DIR:-/work/eco} run --nice 19"
for top in 800 1000; do $E --corpus newest --top "$top"; done
for top in 600 800 1000; do $E --corpus before --top "$top"; done
