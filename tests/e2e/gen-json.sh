# gen-json.sh — 'voidfit gen --json' says what it wrote; gen has no -s or -n (which mean
# seed and no-store elsewhere); seeds take the whole uint64 range, as replay's do; numbers
# with blanks or in hex are usage errors.
. "$VOIDFIT_TOP/tests/lib.sh"

expect_rc 0 vf gen --json --scenario hard -j 40 --nodes 6 --seed 18446744073709551615 -o h
cat > want <<'END'
{
  "scenario": "hard",
  "jobs": 40,
  "nodes": 6,
  "seed": "18446744073709551615",
  "templates": 0,
  "files": [
    "h/nodes.csv",
    "h/jobs.csv",
    "h/faults.txt"
  ]
}
END
cmp want out || { diff want out >&2; die "gen --json"; }
for f in nodes.csv jobs.csv faults.txt; do [ -s "h/$f" ] || die "h/$f not written"; done
[ "$(wc -l < h/jobs.csv)" -eq 41 ] || die "want 40 jobs"
contains h/faults.txt "--seed 18446744073709551615"
# without --json, nothing on the standard output; a scenario without faults lists two files
expect_rc 0 vf gen --scenario balanced -j 40 --nodes 6 -o b
[ ! -s out ] || die "gen printed without --json"
expect_rc 0 vf gen --json -j 40 --nodes 6 -o b
contains out '"files": [
    "b/nodes.csv",
    "b/jobs.csv"
  ]'
grep -q faults out && die "balanced lists faults.txt"

# the top seed and seed 0 are seeds, one more is not
expect_rc 0 vf gen -j 40 --nodes 6 --seed 0 -o z
expect_rc 2 vf gen -j 40 --nodes 6 --seed 18446744073709551616 -o x
contains err "seed '18446744073709551616': want an integer in 0..18446744073709551615"
expect_rc 2 vf gen --seed -1 -o x
contains err "seed '-1'"
# replay takes the same seeds
vf import -q -o h.db h/jobs.csv --nodes h/nodes.csv
expect_rc 0 vf replay h.db --policy first-fit --seed 18446744073709551615 --json --no-store
contains out '"seed": "18446744073709551615"'
expect_rc 2 vf replay h.db --policy first-fit --seed 18446744073709551616 --no-store

# -s and -n are gone; the long options stay
expect_rc 2 vf gen -s hard -o x
contains err "'-s': unknown option"
expect_rc 2 vf gen -n 5 -o x
contains err "'-n': unknown option"
[ ! -e x ] || die "a refused gen wrote x"

# numbers are plain decimals: no blanks, no hex
expect_rc 2 vf gen -j ' 40' -o x
contains err "jobs ' 40'"
expect_rc 2 vf gen -j 0x10 -o x
expect_rc 2 vf gen --seed ' 7' -o x
contains err "seed ' 7'"
[ ! -e x ] || die "a refused gen wrote x"
