# import-json.sh — import --json: the outcome as one JSON object, per file and in total,
# whose counts always add up (read = accepted + quarantined), also when the import fails
# part-way (the row that failed it is not counted) or adds nothing.
. "$VOIDFIT_TOP/tests/lib.sh"
tr=$VOIDFIT_TOP/traces/balanced
{ head -3 "$tr/jobs.csv"; echo "jbad,zz,1,batch,1000,1024,0,0,,,,,"; sed -n 4,6p "$tr/jobs.csv"; } > j.csv
expect_rc 0 vf import --json -o t.db j.csv "$tr/nodes.csv"
contains out '"ok": true'
contains out '"error": null'
contains out '"trace": "j"'
contains out '"trace_id": 1'
contains out '"name": "j.csv",
      "format": "native-jobs",
      "read": 6,
      "accepted": 5,
      "quarantined": 1,'
contains out '"read": 70,
  "accepted": 69,
  "quarantined": 1,
  "jobs": 5,
  "nodes": 64'
! grep -q "rows read =" out || die "--json printed the text outcome too"
contains err "j.csv:4: column 'arrival': 'zz' is not a number"

# A bad row with --strict: nothing imported, and the rows before it counted.
expect_rc 1 vf import --json --strict -o u.db j.csv
contains out '"ok": false'
contains out '"error": "j.csv:4: column '"'arrival'"': '"'zz'"' is not a number (--strict: nothing imported)"'
contains out '"read": 2,
  "accepted": 2,
  "quarantined": 0,
  "jobs": 0,
  "nodes": 0'
[ ! -e u.db ] || die "the failed import made u.db"

# Nothing new.
expect_rc 1 vf import --json -o t.db j.csv
contains out '"ok": false'
contains out '"duplicate_of": "j"'
contains out '"error": "nothing new"'
