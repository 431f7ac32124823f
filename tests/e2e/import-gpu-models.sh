# import --gpu-models: a planner's GPU models and aliases, kept in the store with the trace,
# so that replay, report and size in other processes size and price the trace's GPUs by
# them; the file's errors by FILE:LINE; a table that clashes with the store's is refused
# and the store left as it was; a store's table is sealed like its other tables.
. "$VOIDFIT_TOP/tests/lib.sh"
d=$VOIDFIT_TOP/tests/data
sed 's/Gres=gpu:4/Gres=gpu:rtx6000:4/' "$d/slurm-nodes.txt" >nodes.txt
{ echo 'JobID|Submit|Start|End|AllocTRES'
  echo '1|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T11:00:00|cpu=2,mem=4G,gres/gpu:RTX 6000 Ada=1,node=1'
  echo '2|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T12:00:00|cpu=2,mem=4G,gres/gpu:a100x=1,node=1'; } >jobs.txt
cat >models.csv <<'T'
# our fleet: a model the built-in table lacks, and a spelling of one it has
name,aliases,hbm_mib,on_demand,on_demand_source,reserved,reserved_source,spot,spot_source,owned,owned_source
RTX6000-Ada,rtx6000|RTX 6000 Ada,49152,3.50,our contract 2025,2.00,our contract 2025,1.00,assumed,0.50,assumed: our TCO
A100,a100x,,,,,,,,,
T
expect_rc 0 vf import -o m.db --gpu-models models.csv jobs.txt --nodes nodes.txt
if grep -q "not in the table" err; then cat err >&2; die "a model of the file was unknown"; fi
vf export --nodes m.db | grep '^g02,' >got
[ "$(cat got)" = "g02,gpu,RTX6000-Ada,8000,64000,4,49152,,," ] || die "g02: $(cat got)"
[ "$(vf export --jobs m.db | cut -d, -f13 | tr '\n' ' ')" = "gpu_spec RTX6000-Ada A100 " ] ||
	die "jobs' models: $(vf export --jobs m.db | cut -d, -f13 | tr '\n' ' ')"
got=$(sqlite3 m.db 'SELECT trace_id, name, aliases, hbm_mib, on_demand FROM gpu_models ORDER BY rowid' | tr '\n' ' ')
[ "$got" = "1|RTX6000-Ada|rtx6000|RTX 6000 Ada|49152|3.5 1|A100|a100x|| " ] || die "gpu_models: $got"
# other processes read the store's table: replay places, report prices by it (4 GPUs x
# 3.50 USD/h x 8760 h = 122,640 $/yr provisioned)
expect_rc 0 vf replay m.db --policy first-fit --seed 1
expect_rc 0 vf report m.db --format text
contains out "RTX6000-Ada on-demand (the report's tier): \$3.50 per GPU-hour. Source: our contract"
grep -q 'RTX6000-Ada .*\$122,640' out || { cat out >&2; die "RTX6000-Ada not priced at 3.50"; }
expect_rc 0 vf report m.db --format text --gpu-price rtx6000=7
contains out "RTX6000-Ada on-demand (the report's tier): \$7.00 per GPU-hour"
# verdict and size take the store's own model for --shrink and --gpu-price
expect_rc 0 vf verdict m.db --policy first-fit --shrink rtx6000 --gpu-price rtx6000=7 \
	--no-headroom --threads 1
contains out "the baseline's service today"
expect_rc 0 vf size m.db --policy first-fit --shrink rtx6000 --no-store
expect_rc 2 vf verdict m.db --policy first-fit --shrink nosuch
contains err "--shrink 'nosuch': not a GPU model (see schemas/gpu-models.csv, or the store's own models)"
expect_rc 0 vf info m.db
contains out "GPUs 12 (A100 8, RTX6000-Ada 4)"
expect_rc 0 vf check m.db
contains out "table gpu_models: 2 rows, checksums match"

# the same table again is the same model; another one for the same name is refused, by
# line, and the store stays as it was
cp m.db before.db
expect_rc 0 vf import -q -o m.db --name again --new-trace --gpu-models models.csv jobs.txt
sed 's/^RTX6000-Ada,[^,]*,49152,3.50/RTX6000-Ada,,49152,4.00/' models.csv >other.csv
cp m.db before.db
expect_rc 1 vf import -o m.db --name other --new-trace --gpu-models other.csv jobs.txt
contains err "other.csv:3: GPU model 'RTX6000-Ada' is known already as 'RTX6000-Ada', with another HBM, price or source"
cmp -s m.db before.db || die "a refused import changed the store"

# errors of the file, with FILE:LINE
hdr='name,aliases,hbm_mib,on_demand,on_demand_source,reserved,reserved_source,spot,spot_source,owned,owned_source'
bad() { # bad LINE-2 MESSAGE: a file of the header and one row, refused with MESSAGE
	printf '%s\n%s\n' "$hdr" "$1" >bad.csv
	expect_rc 1 vf import -o b.db --gpu-models bad.csv jobs.txt
	contains err "$2"
	[ ! -e b.db ] || die "a refused import made b.db"
}
bad 'X1,,0,1,s,1,s,1,s,1,s' "bad.csv:2: 'X1': hbm_mib '0' is not a positive integer (MiB)"
bad 'X1,,1024,1,s,,,1,s,1,s' "bad.csv:2: 'X1': reserved is empty (a new model gives hbm_mib and every price with its source; a row of aliases gives none)"
bad 'X1,,1024,free,s,1,s,1,s,1,s' "bad.csv:2: 'X1': on_demand 'free' is not a price (US dollars a GPU-hour, over 0)"
bad 'A100,,81920,1,s,1,s,1,s,1,s' "bad.csv:2: GPU model 'A100' is built in as 'A100': a row naming it adds aliases only"
bad 'X1,H100,1024,1,s,1,s,1,s,1,s' "bad.csv:2: GPU model 'X1': alias 'H100' already names model 'H100'"
bad 'NOSUCH,foo,,,,,,,,,' "bad.csv:2: GPU model 'NOSUCH' is not one voidfit knows: a new model gives hbm_mib and its prices"
bad 'a|b,,1024,1,s,1,s,1,s,1,s' "bad.csv:2: name 'a|b' is not a GPU model name"
printf 'name,hbm,on_demand\n' >bad.csv
expect_rc 1 vf import -o b.db --gpu-models bad.csv jobs.txt
contains err "bad.csv:1: the header lacks column 'hbm_mib' (the columns of schemas/gpu-models.csv)"
printf '%s,price\n' "$hdr" >bad.csv
expect_rc 1 vf import -o b.db --gpu-models bad.csv jobs.txt
contains err "bad.csv:1: 'price' is not a column of a GPU model table"
expect_rc 1 vf import -o b.db --gpu-models nosuch.csv jobs.txt
contains err "nosuch.csv"

# a store's table changed behind voidfit's back is refused before it is used
cp m.db t.db
sqlite3 t.db "UPDATE gpu_models SET on_demand = 0.01 WHERE name = 'RTX6000-Ada'"
expect_rc 1 vf report t.db --format text
contains err "gpu_models"
