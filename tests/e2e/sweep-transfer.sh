# parallel.sh --sshloginfile --transfer through GNU parallel's ssh path (a stand-in ssh that
# runs the command here, in a home of its own): the store goes as a basefile, each task's
# store and log come back, and nothing of the store or the sweep is removed (this host shares
# the file system, as a host of an --sshloginfile may). The merged runs are all there.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v parallel >/dev/null 2>&1 || skip "GNU parallel is not installed (scripts/deps.sh)"
command -v rsync >/dev/null 2>&1 || skip "rsync is not installed (scripts/deps.sh)"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
tr=$VOIDFIT_TOP/traces
vf import -o t.db "$tr/balanced/jobs.csv" "$tr/balanced/nodes.csv" >/dev/null 2>&1 ||
	die "import failed"
here=$(pwd)
# ssh [OPTION...] HOST COMMAND...: run COMMAND in a home of its own, with voidfit on PATH
# and the login shell in SHELL, as sshd sets it (GNU parallel's remote worker runs SHELL)
cat >ssh <<SSH
#!/bin/sh
echo "ssh \$*" >>"$here/ssh.log"
while [ \$# -gt 0 ]; do
	case \$1 in
	-l | -p | -o | -i) shift 2 ;;
	-*) shift ;;
	*) shift; break ;;
	esac
done
[ "\${1:-}" = "--" ] && shift
HOME="$here/remote"
PATH="$(dirname "$VOIDFIT"):\$PATH"
SHELL=/bin/sh
export HOME PATH SHELL
mkdir -p "\$HOME"
cd "\$HOME"
exec sh -c "\$*"
SSH
chmod +x ssh
echo "2/otherhost" >hosts
expect_rc 0 vf sweep t.db -p first-fit,fgd --seeds 1-2 --targets 0.5,0.6 -o sw
sum=$(cksum <t.db)
set +e
sw/parallel.sh --sshloginfile hosts --transfer --ssh "$here/ssh" >par.out 2>&1
prc=$?
set -e
[ $prc -eq 0 ] || { cat par.out >&2; die "parallel.sh --transfer exited $prc"; }
grep -q 'otherhost' ssh.log || die "the tasks did not go through ssh"
grep -q 'rsync' ssh.log || die "nothing was transferred"
[ "$(cksum <t.db)" = "$sum" ] || die "the store changed"
[ "$(ls sw/runs/*.db | wc -l)" -eq 4 ] || die "want 4 task stores: $(ls sw/runs)"
[ -s sw/logs/4.log ] || die "no log came back"
expect_rc 0 vf sweep status sw
contains out "4 tasks: 4 done"
expect_rc 0 vf merge t.db sw/runs/*.db
contains err "merged 8 runs from 4 task stores into t.db"

# a task store that is gone (not returned, or removed since) while its task exited 0, and
# one that came back cut short: a second run reruns exactly those two, through ssh again
rm sw/runs/3.db
head -c 4096 sw/runs/1.db >cut && mv cut sw/runs/1.db
expect_rc 1 vf sweep status sw
contains out "invalid task 1: "
contains out "not done: 1,3"
cp sw/logs/2.log log2
: >ssh.log
set +e
sw/parallel.sh --sshloginfile hosts --transfer --ssh "$here/ssh" >par.out 2>&1
prc=$?
set -e
[ $prc -eq 0 ] || { cat par.out >&2; die "parallel.sh exited $prc rerunning 2 tasks"; }
grep -q 'otherhost' ssh.log || die "the rerun did not go through ssh"
cmp -s log2 sw/logs/2.log || die "a task that was done ran again"
expect_rc 0 vf sweep status sw
contains out "4 tasks: 4 done"
[ "$(sqlite3 sw/runs/1.db 'SELECT count(*) FROM runs')" -eq 2 ] || die "task 1 not rerun whole"
