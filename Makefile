# mixbench — build, set-up and test entry points.
#   make deps   installs the Debian packages the project needs (idempotent)
#   make        builds ./mixbench and its man page build/mixbench.1
#   make run    deps + build + the interactive workbench on the built-in corpus
#   make test   deps + build + the whole test suite (ends with "N passed, N failed");
#               make test T=test_jobs runs some (tests/run.sh NAME[:CHECK]...)
#   make sanitize  the unit and CLI tests again, built with AddressSanitizer +
#               UndefinedBehaviorSanitizer into build/asan/ (CI runs it too;
#               T= picks some as for make test)
#   make install   ./mixbench, its man page and its bash completion under
#               $(DESTDIR)$(PREFIX) (PREFIX default /usr/local); make uninstall
#               removes them
#   make fuzz   builds the libFuzzer harnesses of tests/fuzz/ with clang and runs
#               each for FUZZ_SECONDS (default 60) on a copy of its seed corpus;
#               fails naming the harness and the crashing input (tests/fuzz/run.sh)

CC      ?= cc
CFLAGS  ?= -std=c11 -O3 -march=native -g -Wall -Wextra -pthread
# `#pragma omp simd` vectorises a few loops (mamba's scan); no OpenMP runtime
override CFLAGS += -fopenmp-simd
# mpi.h for its types only: engine/dist.c loads libmpi with dlopen when
# mpirun or srun started the process, so the binary does not link it
MPI_CFLAGS ?= $(shell pkg-config --cflags ompi-c 2>/dev/null || echo -I/usr/lib/x86_64-linux-gnu/openmpi/include)
CPPFLAGS += -D_GNU_SOURCE -I. -MMD -MP $(MPI_CFLAGS)
# cairo draws the figures (ui/draw/figure_draw.c: SVG, PDF, PNG; fontconfig,
# which cairo's text uses, to free its caches at exit); only that file needs
# their headers
CAIRO_CFLAGS ?= $(shell pkg-config --cflags cairo fontconfig 2>/dev/null)
CAIRO_LIBS   ?= $(shell pkg-config --libs cairo fontconfig 2>/dev/null || echo -lcairo -lfontconfig)
# GSL's distributions and quantiles (experiments/stats.c); not -lgslcblas:
# OpenBLAS, linked first, provides the cblas symbols GSL calls
LDLIBS  = -lopenblas -lgsl -lfftw3f -lsqlite3 -lncursesw $(CAIRO_LIBS) -lyaml -lpthread -lm -ldl

DEB_PACKAGES = build-essential libncurses-dev libsqlite3-dev libopenblas-dev \
               libfftw3-dev sqlite3 tmux python3-torch openmpi-bin libopenmpi-dev clang xz-utils \
               libdnnl-dev libcairo2-dev libxml2-utils man-db libgsl-dev python3-scipy \
               libyaml-dev

LIB_SRC  = $(sort $(wildcard engine/*.c engine/*/*.c db/*.c ui/*.c ui/*/*.c experiments/*.c))
# the built-in studies (docs/studies.md), in the order `mixbench sweep`
# lists them and `report` reports them: compiled into the binary as C
# strings by experiments/embed_studies.sh (build/gen/, whatever $(BUILD))
BUILTIN_STUDIES = studies/dispatcher-vs-msa.yaml studies/pairconnect-grid.yaml studies/pairconnect-hash.yaml \
                  studies/pairconnect-speed.yaml studies/mixer-vs-transformer.yaml studies/autoencoder.yaml \
                  studies/bidirectional.yaml studies/completion.yaml studies/linear-mixer.yaml \
                  studies/fft-mlm.yaml studies/prefix-models.yaml studies/zoology.yaml studies/recall.yaml \
                  studies/long-context.yaml
GEN_SRC  = build/gen/studies_builtin.c
LIB_SRC += $(GEN_SRC)
APP_SRC  = $(sort $(wildcard app/*.c))
TEST_SRC = $(sort $(wildcard tests/*/test_*.c tests/test_*.c))
# BUILD: where objects and test binaries go (build/asan for `make sanitize`);
# BIN: the program
BUILD   ?= build
BIN     ?= mixbench
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
APP_OBJ  = $(APP_SRC:%.c=$(BUILD)/%.o)
TEST_BIN = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

all: $(BIN) $(BUILD)/mixbench.1

# ---- the version: the file VERSION, and `git describe` of the checkout when
# there is one.  $(BUILD)/version changes only when the text does, and
# app/version.c (mixbench --version, the man page's header) is rebuilt then.
VERSION_TEXT := $(shell cat VERSION)$(shell git describe --always --dirty 2>/dev/null | sed 's/.*/ (git &)/')
$(BUILD)/version: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION_TEXT)' | cmp -s - $@ || echo '$(VERSION_TEXT)' >$@
$(BUILD)/app/version.o: $(BUILD)/version
$(BUILD)/app/version.o: CPPFLAGS += -DMIXBENCH_VERSION='"$(VERSION_TEXT)"'

# ---- the man page mixbench(1), written by the binary from the texts of
# `mixbench help` (app/man.c)
$(BUILD)/mixbench.1: $(BIN)
	./$(BIN) help --man >$@.tmp && mv $@.tmp $@

$(BIN): $(APP_OBJ) $(BUILD)/libmixbench.a
	$(CC) $(CFLAGS) -o $@ $(APP_OBJ) $(BUILD)/libmixbench.a $(LDLIBS)

$(BUILD)/libmixbench.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $(LIB_OBJ)

# each object depends on the headers it includes (-MMD -MP writes $(BUILD)/X.d)
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build/gen/studies_builtin.c: $(BUILTIN_STUDIES) experiments/embed_studies.sh
	@mkdir -p $(dir $@)
	sh experiments/embed_studies.sh $(BUILTIN_STUDIES) >$@.tmp && mv $@.tmp $@

# AdamW's square root (engine/optim.c) vectorises only without errno: sqrtf
# of a negative number, which a moment never is, would have to set it
$(BUILD)/engine/optim.o: CPPFLAGS += -fno-math-errno
$(BUILD)/ui/draw/figure_draw.o: CPPFLAGS += $(CAIRO_CFLAGS)

# (a test's dependency file goes to $(BUILD)/deps/: $(BUILD)/tests/ holds
# only the binaries that tests/run.sh runs; tests/X/test_Y.c builds
# $(BUILD)/tests/X/test_Y)
$(BUILD)/tests/%: tests/%.c $(BUILD)/libmixbench.a
	@mkdir -p $(dir $@) $(dir $(BUILD)/deps/tests/$*)
	$(CC) $(CPPFLAGS) -MF $(BUILD)/deps/tests/$*.d $(CFLAGS) -o $@ $< $(BUILD)/libmixbench.a $(LDLIBS)

# test_alloc counts every allocation our code makes during a training step
$(BUILD)/tests/engine/test_alloc: LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc

tests: $(TEST_BIN) fuzz-regress

# ---- fuzzing (tests/fuzz/).  `make fuzz` builds each harness with clang and
# libFuzzer, ASan and UBSan; the library is compiled again for it into
# build/fuzz/ (never mixed with build/'s objects).  `make fuzz-regress`
# (part of `make tests`) builds the same harnesses with $(CC) and a plain
# main (tests/fuzz/standalone.c) for tests/fuzz/test_fuzz_regress.sh.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS  ?= -std=c11 -g -O1 -Wall -Wextra -pthread -fno-omit-frame-pointer -fopenmp-simd
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_NAMES    = $(sort $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_LIB_SRC  = $(filter engine/% db/% experiments/% $(GEN_SRC),$(LIB_SRC))
FUZZ_LIB_OBJ  = $(FUZZ_LIB_SRC:%.c=build/fuzz/obj/%.o)
FUZZ_BIN      = $(FUZZ_NAMES:%=build/fuzz/bin/fuzz_%)
FUZZ_REGRESS_BIN = $(FUZZ_NAMES:%=build/fuzz-regress/fuzz_%)

build/fuzz/obj/%.o: %.c | fuzz-cc
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<

build/fuzz/libmixbench.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $(FUZZ_LIB_OBJ)

build/fuzz/bin/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build/fuzz/libmixbench.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< build/fuzz/libmixbench.a $(LDLIBS)

fuzz-cc:
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs $(FUZZ_CC): apt-get install clang"; exit 1; }

fuzz-build: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN)
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

build/fuzz-regress/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/standalone.c tests/fuzz/fuzz.h build/libmixbench.a
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CPPFLAGS)) $(CFLAGS) -o $@ $< tests/fuzz/standalone.c build/libmixbench.a $(LDLIBS)

fuzz-regress: $(FUZZ_REGRESS_BIN)

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "deps: all Debian packages present"; fi

run: deps
	$(MAKE) mixbench
	./mixbench

# T: the tests to run (names or globs, NAME:CHECK for one check; default
# every one), as tests/run.sh takes them
T ?=
test: deps
	$(MAKE) mixbench tests
	@tests/run.sh $(T)

# The C unit tests and the CLI tests under AddressSanitizer + UBSan (any
# report fails the test: halt_on_error, and UBSan's traps are fatal).
# Open MPI's libraries are never loaded by these tests.
SAN_FLAGS = -std=c11 -O1 -g -march=native -Wall -Wextra -pthread -fsanitize=address,undefined \
            -fno-omit-frame-pointer -fno-sanitize-recover=undefined
sanitize: deps
	$(MAKE) BUILD=build/asan BIN=build/asan/mixbench CFLAGS="$(SAN_FLAGS)" build/asan/mixbench \
	        $(TEST_SRC:tests/%.c=build/asan/tests/%)
	@ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  MIXBENCH=$(CURDIR)/build/asan/mixbench MIXBENCH_TIMEOUT_SCALE=2 \
	  MIXBENCH_TESTS="$(SAN_TESTS)" tests/run.sh $(T)
# which tests `make sanitize` runs: every C unit test and the CLI's (the
# figures' too: cairo's drawing runs in our process)
SAN_TESTS = $(TEST_SRC:tests/%.c=build/asan/tests/%) tests/cli/test_cli.sh tests/db/test_store_cli.sh \
            tests/cli/test_organise_cli.sh tests/cli/test_plot_cli.sh tests/cli/test_analysis_cli.sh

clean:
	rm -rf build mixbench

# ---- install: PREFIX (default /usr/local) and DESTDIR (a staging root)
PREFIX  ?= /usr/local
COMPLETION = share/bash-completion/completions/mixbench
INSTALLED  = $(DESTDIR)$(PREFIX)/bin/mixbench $(DESTDIR)$(PREFIX)/share/man/man1/mixbench.1 \
             $(DESTDIR)$(PREFIX)/$(COMPLETION)
install: $(BIN) $(BUILD)/mixbench.1
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(dir $(DESTDIR)$(PREFIX)/$(COMPLETION))
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/mixbench
	install -m 644 $(BUILD)/mixbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/mixbench.1
	install -m 644 $(COMPLETION) $(DESTDIR)$(PREFIX)/$(COMPLETION)

uninstall:
	rm -f $(INSTALLED)

.PHONY: all deps run test tests sanitize clean fuzz fuzz-build fuzz-cc fuzz-regress install uninstall FORCE

-include $(LIB_OBJ:.o=.d) $(APP_OBJ:.o=.d) $(TEST_SRC:tests/%.c=$(BUILD)/deps/tests/%.d)
-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_BIN:%=%.d)
