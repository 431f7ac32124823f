#!/bin/sh
# Install the Debian packages voidfit needs to build, test and benchmark, and only those that
# are missing. Runs apt-get as root; as another user it names what is missing and stops.
set -eu

# To build; then what 'make check', CI (the clang build, 'make fuzz': clang's libFuzzer
# runtime) and the benchmarks use: man page checks (mandoc, groff), clang-format, git, and
# the engines the sweep tests run (GNU parallel and rsync; Slurm and munge, started by
# tests/slurm/; slurmdbd and MariaDB for the accounting that tests/e2e/slurm-accounting.sh
# exports).
pkgs="build-essential pkg-config libncurses-dev libzstd-dev libsqlite3-dev libcsv-dev
zlib1g-dev libjansson-dev
libcmocka-dev mandoc groff-base clang clang-format libclang-rt-dev git tmux sqlite3 zstd
xz-utils gzip time librsvg2-bin libxml2-utils jq
parallel rsync slurm-wlm munge slurmdbd mariadb-server"

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing Debian packages:$missing" >&2
	echo "deps.sh: run 'sudo scripts/deps.sh' or install them with apt-get" >&2
	exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2
