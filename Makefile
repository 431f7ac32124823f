# voidfit — one non-recursive Makefile. Outputs go to $(BUILD)/.
#   make [all]      build $(BUILD)/voidfit
#   make check      unit tests, end-to-end tests, man page lint
#   make demo       import a bundled trace, replay it under every policy, compare
#   make bench      the benchmarks (figures as ratios against reference runs)
#   make fuzz       build the libFuzzer harnesses (tests/fuzz) with clang and run each for
#                   FUZZ_TIME seconds (default 30) on its corpus; finds go to build-fuzz/
#   make DEV=1      warnings are errors;  make SANITIZE=address,undefined
#   A change of CC, CFLAGS, DEV, SANITIZE, OPT... rebuilds what it affects ($(BUILD)/flags).
.SUFFIXES:
.DEFAULT_GOAL := all

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
OPT     ?= -O2 -g
PKGS     = ncursesw libzstd sqlite3 zlib jansson

WARN = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow -Wstrict-prototypes \
       -Wmissing-prototypes -Wwrite-strings -Wformat=2 -Wvla
ifeq ($(DEV),1)
WARN += -Werror
endif
# Not added to OPT: a command-line OPT (as CI gives) would override the addition.
ifneq ($(SANITIZE),)
SANFLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDSAN    = -fsanitize=$(SANITIZE)
endif

# Package flags are found once, after scripts/deps.sh has installed what is missing.
NODEPS_GOALS = clean format lint-format
ifeq ($(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
else
-include $(BUILD)/config.mk
endif
$(BUILD)/config.mk: scripts/deps.sh
	@mkdir -p $(BUILD)
	@scripts/deps.sh
	@{ echo "PKG_CFLAGS = $$(pkg-config --cflags $(PKGS))"; \
	   echo "PKG_LIBS = $$(pkg-config --libs $(PKGS)) -lcsv -lm"; \
	   echo "CMOCKA_CFLAGS = $$(pkg-config --cflags cmocka)"; \
	   echo "CMOCKA_LIBS = $$(pkg-config --libs cmocka)"; } > $@.tmp && mv $@.tmp $@

# Quiet build lines; make V=1 shows the commands.
ifeq ($(V),1)
Q =
say = @:
else
Q = @
say = @printf '  %-5s %s\n'
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
ALL_CFLAGS = $(WARN) $(OPT) $(SANFLAGS) -Iinclude -I$(BUILD)/gen $(PKG_CFLAGS) \
             -DVOIDFIT_VERSION='"$(VERSION)"' $(CFLAGS)
ALL_LDFLAGS = $(LDSAN) $(LDFLAGS)

# The compiler and flags in force are part of what an object depends on: $(BUILD)/flags
# holds them and is rewritten only when they change, so 'make DEV=1' or 'make SANITIZE=...'
# after a plain 'make' rebuilds everything, and a repeated 'make' rebuilds nothing.
ifneq ($(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
FLAGS_NOW := $(strip $(CC) $(ALL_CFLAGS) | $(ALL_LDFLAGS) $(PKG_LIBS))
ifneq ($(FLAGS_NOW),$(strip $(shell cat $(BUILD)/flags 2>/dev/null)))
$(shell mkdir -p $(BUILD))
$(file >$(BUILD)/flags,$(FLAGS_NOW))
endif
endif
$(BUILD)/flags: ;

SRC      = $(wildcard src/*.c)
LIB_SRC  = $(filter-out src/main.c,$(SRC))
LIB_OBJ  = $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/embed.o
EMBED_IN = $(sort $(wildcard schemas/*.sql schemas/*.csv schemas/*.profile schemas/*.map))
# Which files are embedded is part of what embed.c depends on: $(BUILD)/embed.list holds
# their names, and when they change embed.c is made again, so that a file removed from
# schemas/ (no newer prerequisite then) leaves the binary too.
ifneq ($(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
ifneq ($(strip $(EMBED_IN)),$(strip $(shell cat $(BUILD)/embed.list 2>/dev/null)))
$(shell mkdir -p $(BUILD) && rm -f $(BUILD)/gen/embed.c)
$(file >$(BUILD)/embed.list,$(strip $(EMBED_IN)))
endif
endif
UNIT_SRC = $(wildcard tests/unit/test-*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Fuzz harnesses: tests/fuzz/fuzz-NAME.c, corpus tests/fuzz/corpus/NAME/. 'make check'
# runs the corpus through each with tests/fuzz/driver.c; 'make fuzz' links libFuzzer.
FUZZ_SRC = $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BIN = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_LF  = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%-libfuzzer)
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME  ?= 30

all: $(BUILD)/voidfit

$(BUILD)/voidfit: $(BUILD)/obj/main.o $(BUILD)/libvoidfit.a $(BUILD)/flags
	$(say) LINK $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(BUILD)/obj/main.o $(BUILD)/libvoidfit.a $(PKG_LIBS)

$(BUILD)/libvoidfit.a: $(LIB_OBJ)
	@rm -f $@
	$(say) AR $@
	$(Q)ar rcs $@ $^

$(BUILD)/obj/%.o: src/%.c $(BUILD)/config.mk $(BUILD)/flags | $(BUILD)/gen/embed.h
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# schemas/ files (migrations, GPU model table, profiles, mappings) are compiled in.
$(BUILD)/gen/embed.c $(BUILD)/gen/embed.h &: scripts/embed.sh $(EMBED_IN)
	@mkdir -p $(BUILD)/gen
	$(say) GEN $(BUILD)/gen/embed.c
	$(Q)scripts/embed.sh $(BUILD)/gen $(EMBED_IN)
$(BUILD)/obj/embed.o: $(BUILD)/gen/embed.c $(BUILD)/config.mk $(BUILD)/flags
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-overlength-strings -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libvoidfit.a $(BUILD)/flags
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Itests -o $@ $< $(BUILD)/libvoidfit.a \
	    $(ALL_LDFLAGS) $(PKG_LIBS) $(CMOCKA_LIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/driver.c $(BUILD)/libvoidfit.a $(BUILD)/flags
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< tests/fuzz/driver.c $(BUILD)/libvoidfit.a \
	    $(ALL_LDFLAGS) $(PKG_LIBS)

$(BUILD)/fuzz/%-libfuzzer: tests/fuzz/%.c $(BUILD)/libvoidfit.a $(BUILD)/flags
	@mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libvoidfit.a \
	    $(ALL_LDFLAGS) $(PKG_LIBS)

check: $(BUILD)/voidfit $(UNIT_BIN) $(FUZZ_BIN)
	@tests/run.sh $(BUILD)

# The library is built for libFuzzer's coverage (fuzzer-no-link) with ASan and UBSan.
fuzz:
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang OPT="-O1 -g" \
	    SANITIZE=address,undefined,fuzzer-no-link fuzz-run
fuzz-run: $(FUZZ_LF)
	@scripts/fuzz.sh $(BUILD) $(FUZZ_TIME)

demo: $(BUILD)/voidfit
	@scripts/demo.sh $(BUILD)

bench: $(BUILD)/voidfit
	@scripts/bench.sh $(BUILD)

install: $(BUILD)/voidfit
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 $(BUILD)/voidfit $(DESTDIR)$(PREFIX)/bin/voidfit
	install -m 644 man/voidfit.1 $(DESTDIR)$(PREFIX)/share/man/man1/voidfit.1
	install -m 644 man/voidfit.5 $(DESTDIR)$(PREFIX)/share/man/man5/voidfit.5
	install -m 644 man/voidfit.7 $(DESTDIR)$(PREFIX)/share/man/man7/voidfit.7

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/voidfit $(DESTDIR)$(PREFIX)/share/man/man1/voidfit.1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5/voidfit.5 $(DESTDIR)$(PREFIX)/share/man/man7/voidfit.7

FORMAT_SRC = src/*.c src/*.h include/*.h tests/unit/*.c tests/fuzz/*.c
format:
	clang-format -i $(FORMAT_SRC)

lint-format:
	clang-format --dry-run --Werror $(FORMAT_SRC)

lint: $(BUILD)/config.mk lint-format
	mandoc -Tlint -Wwarning man/voidfit.1 man/voidfit.5 man/voidfit.7
	for m in man/voidfit.1 man/voidfit.5 man/voidfit.7; do \
	    groff -mandoc -ww -z -Tutf8 $$m && groff -mandoc -ww -z -Tps $$m || exit 1; done
	scripts/check-layers.sh

clean:
	rm -rf $(BUILD)

.PHONY: all check fuzz fuzz-run demo bench install uninstall format lint lint-format clean

-include $(wildcard $(BUILD)/obj/*.d)
