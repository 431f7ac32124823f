#!/bin/sh
# Start the accounting of a private Slurm for the tests: MariaDB on its own socket and port
# with its data in STATEDIR/mysql, the database slurm_acct_db, and slurmdbd on port 16819,
# nothing in /etc touched. Run it before start.sh with the same STATEDIR (munged must run
# first: start.sh starts it, so this script starts its own if none is there); then start.sh
# with VOIDFIT_SLURM_DBD=1 records jobs there. Stop it with stop.sh.
#
#   tests/slurm/start-dbd.sh STATEDIR
#
# Exits 77 with the reason on the last line when it cannot start here.
set -eu
dir=${1:?usage: start-dbd.sh STATEDIR}
skip() { echo "slurmdbd: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root"
PATH=/usr/sbin:/usr/bin:$PATH
for b in mariadbd mariadb-install-db mariadb slurmdbd munged; do
	command -v "$b" >/dev/null 2>&1 ||
		skip "$b is not installed (apt-get install mariadb-server slurmdbd munge)"
done
id mysql >/dev/null 2>&1 || skip "no mysql user (made when mariadb-server is installed)"
mkdir -p "$dir/mysql" "$dir/munge" "$dir/log"
dir=$(cd "$dir" && pwd)
chown mysql: "$dir/mysql"
sock=$dir/mysql/mysqld.sock
mariadb-install-db --user=mysql --datadir="$dir/mysql/data" --auth-root-authentication-method=socket \
	--skip-test-db >"$dir/log/mariadb-install.log" 2>&1 ||
	skip "mariadb-install-db failed: $(tail -1 "$dir/log/mariadb-install.log")"
mariadbd --no-defaults --user=mysql --datadir="$dir/mysql/data" --socket="$sock" \
	--port=16820 --bind-address=127.0.0.1 --pid-file="$dir/mysql/mysqld.pid" \
	--log-error="$dir/log/mariadb.log" --innodb-buffer-pool-size=32M \
	--innodb-log-file-size=8M >/dev/null 2>&1 &
i=0
until mariadb --no-defaults -S "$sock" -u root -e 'SELECT 1' >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 300 ] || skip "MariaDB did not start: $(tail -1 "$dir/log/mariadb.log" 2>/dev/null)"
	sleep 0.1
done
mariadb --no-defaults -S "$sock" -u root -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
	CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'voidfit-test';
	GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" ||
	skip "cannot create slurm_acct_db"

msock=$dir/munge/munge.socket
if [ ! -S "$msock" ]; then
	chown munge: "$dir/munge"
	chmod 711 "$dir/munge"
	runuser -u munge -- munged --socket="$msock" --pid-file="$dir/munge/munged.pid" \
		--log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" ||
		skip "munged did not start"
fi
cat >"$dir/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$msock
DbdHost=localhost
DbdPort=16819
SlurmUser=root
LogFile=$dir/log/slurmdbd.log
PidFile=$dir/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=16820
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=voidfit-test
CONF
chmod 600 "$dir/slurmdbd.conf"
# slurmdbd reads its config beside slurm.conf; SLURM_CONF names a file whose directory is it
SLURM_CONF=$dir/slurm.conf slurmdbd ||
	skip "slurmdbd did not start: $(tail -1 "$dir/log/slurmdbd.log" 2>/dev/null)"
i=0
until (echo >/dev/tcp/127.0.0.1/16819) 2>/dev/null || ss -ltn 2>/dev/null | grep -q ':16819 '; do
	i=$((i + 1))
	[ $i -lt 300 ] || skip "slurmdbd did not listen: $(tail -1 "$dir/log/slurmdbd.log" 2>/dev/null)"
	sleep 0.1
done
echo "slurmdbd on 16819"
