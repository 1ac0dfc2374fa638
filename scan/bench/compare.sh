#!/bin/sh
# compare.sh times "gitleaks dir" and "teammemd scan" (cold: empty cache) on
# the same generated corpus of 10,000 Markdown notes of 4 KB, in one run.
#
#   GOBIN=/tmp/peer go install github.com/zricethezav/gitleaks/v8@v8.30.1
#   GITLEAKS=/tmp/peer/gitleaks scan/bench/compare.sh
#
# Run it from the module root. N and SIZE override the corpus shape; TAGS
# the build tags of teammemd (default gore2regex; TAGS= for Go's regexp).
set -eu
N=${N:-10000}
SIZE=${SIZE:-4096}
GITLEAKS=${GITLEAKS:-gitleaks}
TAGS=${TAGS-gore2regex}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -tags "$TAGS" -o "$work/teammemd" ./cmd/teammemd
go run ./scan/internal/gennotes -n "$N" -size "$SIZE" -out "$work/notes"
echo "corpus: $N notes of ~$SIZE bytes ($(du -sh "$work/notes" | cut -f1)); $(nproc) cores; teammemd built with tags '$TAGS'"

now() { date +%s.%N; }

t0=$(now)
"$GITLEAKS" dir --no-banner --exit-code 0 --log-level error "$work/notes" >/dev/null
t1=$(now)
rc=0
XDG_STATE_HOME="$work/state" TEAMMEMD_CONFIG=/dev/null "$work/teammemd" scan --cache "$work/state/cache.json" "$work/notes" >"$work/report.txt" || rc=$?
t2=$(now)
[ "$rc" -le 1 ] || { echo "teammemd scan failed ($rc)" >&2; exit 1; }
XDG_STATE_HOME="$work/state" TEAMMEMD_CONFIG=/dev/null "$work/teammemd" scan --cache "$work/state/cache.json" "$work/notes" >/dev/null || true
t3=$(now)

awk -v g="$(echo "$t1 - $t0" | bc)" -v c="$(echo "$t2 - $t1" | bc)" -v w="$(echo "$t3 - $t2" | bc)" -v f="$(wc -l <"$work/report.txt")" 'BEGIN {
	printf "gitleaks dir:          %7.2f s\n", g
	printf "teammemd scan (cold):  %7.2f s  (%d findings)\n", c, f
	printf "teammemd scan (warm):  %7.2f s\n", w
	printf "cold speed-up:         %7.1fx\n", g / c
}'
