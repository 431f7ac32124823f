#!/bin/sh
# Check that layers point one way (STYLE.md rule 5) and that only commands print or exit
# (rule 4). Prints each violation; exits 1 if there is any.
set -u
cd "$(dirname "$0")/.."
bad=0
say() { echo "check-layers: $*"; bad=1; }

# The engine — simulator, event queue, cluster, jobs, policies, fragmentation, metrics,
# faults, enrichment, resampling — knows neither the store, the terminal, nor the commands.
for f in src/sim*.c src/evq*.c src/cluster*.c src/job*.c src/pol*.c src/frag*.c \
	 src/metrics*.c src/fault*.c src/enrich*.c src/resample*.c include/sim*.h include/evq*.h \
	 include/cluster*.h include/job*.h include/policy*.h include/frag*.h \
	 include/metrics*.h include/fault*.h include/enrich*.h include/resample*.h; do
	[ -f "$f" ] || continue
	grep -nE '#include *[<"](sqlite3|curses|ncurses|zstd|csv|store|cmd|report)[^">]*[">]' "$f" |
		while IFS= read -r l; do echo "check-layers: $f: $l: the engine must not include this"; done |
		grep . && bad=1
done

# curses only in the dashboard's terminal side, ui*.c (STYLE.md: curses in one module).
for f in src/*.c src/*.h include/*.h; do
	case "$f" in src/ui*) continue ;; esac
	grep -nE '#include *[<"](n?curses|term)[^">]*[">]' "$f" |
		while IFS= read -r l; do echo "check-layers: $f: $l: curses only in src/ui*.c"; done |
		grep . && bad=1
done

# Library modules return errors; only main.c and cmd-*.c print or exit.
for f in src/*.c; do
	case "$f" in src/main.c | src/cmd*.c | src/util.c) continue ;; esac
	grep -nE '(^|[^_a-z])(printf|puts|perror|exit) *\(|fprintf *\( *std(out|err)' "$f" |
		grep -v '^\s*/\?\*' | while IFS= read -r l; do
		echo "check-layers: $f: $l: only commands print or exit"
	done | grep . && bad=1
done
exit $bad
