# The repository holds no file it ignores (a run's leftovers such as a .pid or a store),
# and a run's leftovers are ignored.
. "$VOIDFIT_TOP/tests/lib.sh"
command -v git >/dev/null 2>&1 || skip "git is not installed"
git -C "$VOIDFIT_TOP" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
tracked=$(git -C "$VOIDFIT_TOP" ls-files -ci --exclude-standard)
[ -z "$tracked" ] || die "committed though ignored: $tracked"
for f in big3.pid x.db x.db-wal build/voidfit build-clang/x long.csv s.zst t.csv.gz; do
	git -C "$VOIDFIT_TOP" check-ignore -q --no-index "$f" || die "'$f' is not ignored"
done
echo "no ignored file is committed; leftovers are ignored"
