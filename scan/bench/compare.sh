#!/bin/sh
# compare.sh times "gitleaks dir" and "teammemd scan" (cold: empty verdict
# cache) on the same two generated corpora of 10,000 Markdown notes of 4 KB,
# keyword-dense and clean, in one run: ROUNDS rounds, the two tools
# alternating (which goes first alternates too), then the median of each.
# It also times the start of a scan, "teammemd scan" of one note from
# process start to its exit, the median of 20.
#
#   go build -o /tmp/gitleaks github.com/zricethezav/gitleaks/v8
#   GITLEAKS=/tmp/gitleaks scan/bench/compare.sh
#
# Run it from the module root. N, SIZE and ROUNDS override the corpus shape
# and the number of rounds.
set -eu
N=${N:-10000}
SIZE=${SIZE:-4096}
ROUNDS=${ROUNDS:-3}
GITLEAKS=${GITLEAKS:-gitleaks}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/teammemd" ./cmd/teammemd
for kind in dense clean; do
	go run ./scan/internal/gennotes -kind "$kind" -n "$N" -size "$SIZE" -out "$work/$kind"
done
echo "corpora: $N notes of ~$SIZE bytes each, dense ($(du -sh "$work/dense" | cut -f1)) and clean ($(du -sh "$work/clean" | cut -f1)); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

now() { date +%s.%N; }

# gitleaks_run DIR prints its wall time and writes its findings count.
gitleaks_run() {
	t0=$(now)
	"$GITLEAKS" dir --no-banner --exit-code 0 --log-level error --report-format json --report-path "$work/gl.json" "$1" >/dev/null
	t1=$(now)
	grep -c '"RuleID"' "$work/gl.json" >"$work/gl.count" || true
	echo "$t1 - $t0" | bc
}

# teammemd_run DIR prints its wall time, cold, and writes its findings count.
teammemd_run() {
	rm -rf "$work/state"
	rc=0
	t0=$(now)
	XDG_STATE_HOME="$work/state" TEAMMEMD_CONFIG=/dev/null "$work/teammemd" scan --cache "$work/state/cache.json" "$1" >"$work/tm.txt" 2>"$work/tm.err" || rc=$?
	t1=$(now)
	[ "$rc" -le 1 ] || { cat "$work/tm.err" >&2; echo "teammemd scan failed ($rc)" >&2; exit 1; }
	wc -l <"$work/tm.txt" >"$work/tm.count"
	echo "$t1 - $t0" | bc
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for kind in dense clean; do
	: >"$work/$kind.gl"
	: >"$work/$kind.tm"
done
for round in $(seq "$ROUNDS"); do
	for kind in dense clean; do
		if [ $((round % 2)) -eq 1 ]; then
			gitleaks_run "$work/$kind" >>"$work/$kind.gl"
			teammemd_run "$work/$kind" >>"$work/$kind.tm"
		else
			teammemd_run "$work/$kind" >>"$work/$kind.tm"
			gitleaks_run "$work/$kind" >>"$work/$kind.gl"
		fi
		echo "round $round $kind: gitleaks dir $(tail -n 1 "$work/$kind.gl") s ($(cat "$work/gl.count") findings), teammemd scan $(tail -n 1 "$work/$kind.tm") s ($(cat "$work/tm.count") findings)"
	done
done
for kind in dense clean; do
	g=$(median <"$work/$kind.gl")
	c=$(median <"$work/$kind.tm")
	awk -v k="$kind" -v g="$g" -v c="$c" 'BEGIN { printf "%s: gitleaks dir %.2f s, teammemd scan %.2f s (medians): %.1fx faster\n", k, g, c, g / c }'
done

# The start of a scan: one note, from process start to exit.
head -c 4096 "$work/dense/note-00001.md" >"$work/one.md"
: >"$work/start"
for _ in $(seq 20); do
	rm -rf "$work/state"
	t0=$(now)
	XDG_STATE_HOME="$work/state" TEAMMEMD_CONFIG=/dev/null "$work/teammemd" scan --cache "$work/state/cache.json" "$work/one.md" >/dev/null 2>&1 || true
	t1=$(now)
	echo "$t1 - $t0" | bc >>"$work/start"
done
awk -v s="$(median <"$work/start")" 'BEGIN { printf "start: teammemd scan of one 4 KB note, process start to exit: %.0f ms (median of 20)\n", s * 1000 }'
