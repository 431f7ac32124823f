# Two replays storing runs into one store at once: each says the ids of the runs it stored,
# not a range that takes in the other's (runs are stored one by one, as they end).
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
vf import -q -o t.db "$tr/jobs.csv" "$tr/nodes.csv"
set +e
vf replay t.db --policy first-fit,best-fit,packing,fgd --seeds 1-6 --threads 1 >/dev/null 2>a.err &
a=$!
vf replay t.db --policy first-fit,best-fit,packing,fgd --seeds 1-6 --threads 1 \
	--queue backfill >/dev/null 2>b.err
wait $a
set -e
# "stored 24 runs in t.db (ids 1-3, 7, 9-29)" -> one id a line
ids() {
	sed -n 's/.*stored 24 runs in t.db (ids \(.*\)).*/\1/p' "$1" | tr ',' '\n' |
		awk -F- '{ lo = $1 + 0; hi = NF > 1 ? $2 + 0 : lo; for (i = lo; i <= hi; i++) print i }'
}
ids a.err >a.ids
ids b.err >b.ids
[ "$(wc -l <a.ids)" -eq 24 ] || { cat a.err >&2; die "the first replay names $(wc -l <a.ids) ids"; }
[ "$(wc -l <b.ids)" -eq 24 ] || { cat b.err >&2; die "the second replay names $(wc -l <b.ids) ids"; }
[ "$(sort -n a.ids b.ids | uniq | wc -l)" -eq 48 ] ||
	die "the replays name ids in common: $(grep stored a.err b.err)"
[ "$(sort -n a.ids b.ids | tr '\n' ' ')" = "$(seq 1 48 | tr '\n' ' ')" ] ||
	die "the ids named are not the runs stored"
