# mixbench — build, set-up and test entry points.
#   make deps   installs the Debian packages the project needs (idempotent)
#   make        builds ./mixbench
#   make run    deps + build + the interactive workbench on the built-in corpus
#   make test   deps + build + the whole test suite (ends with "N passed, N failed")

CC      ?= cc
CFLAGS  ?= -std=c11 -O3 -march=native -g -Wall -Wextra -pthread
# mpi.h for its types only: engine/dist.c loads libmpi with dlopen when
# mpirun or srun started the process, so the binary does not link it
MPI_CFLAGS ?= $(shell pkg-config --cflags ompi-c 2>/dev/null || echo -I/usr/lib/x86_64-linux-gnu/openmpi/include)
CPPFLAGS += -D_GNU_SOURCE -I. -MMD -MP $(MPI_CFLAGS)
LDLIBS  = -lopenblas -lfftw3f -lsqlite3 -lncursesw -lpthread -lm -ldl

DEB_PACKAGES = build-essential libncurses-dev libsqlite3-dev libopenblas-dev \
               libfftw3-dev sqlite3 tmux python3-torch openmpi-bin libopenmpi-dev

LIB_SRC  = $(sort $(wildcard engine/*.c engine/*/*.c db/*.c ui/*.c ui/*/*.c experiments/*.c))
APP_SRC  = $(sort $(wildcard app/*.c))
TEST_SRC = $(sort $(wildcard tests/test_*.c))
LIB_OBJ  = $(LIB_SRC:%.c=build/%.o)
APP_OBJ  = $(APP_SRC:%.c=build/%.o)
TEST_BIN = $(TEST_SRC:tests/%.c=build/tests/%)

all: mixbench

mixbench: $(APP_OBJ) build/libmixbench.a
	$(CC) $(CFLAGS) -o $@ $(APP_OBJ) build/libmixbench.a $(LDLIBS)

build/libmixbench.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $(LIB_OBJ)

# each object depends on the headers it includes (-MMD -MP writes build/X.d)
build/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# (a test's dependency file goes to build/deps/: build/tests/ holds only the
# binaries that tests/run.sh runs)
build/tests/%: tests/%.c build/libmixbench.a
	@mkdir -p $(dir $@) build/deps/tests
	$(CC) $(CPPFLAGS) -MF build/deps/tests/$*.d $(CFLAGS) -o $@ $< build/libmixbench.a $(LDLIBS)

# test_alloc counts every allocation our code makes during a training step
build/tests/test_alloc: LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc

tests: $(TEST_BIN)

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

test: deps
	$(MAKE) mixbench tests
	@tests/run.sh

clean:
	rm -rf build mixbench

.PHONY: all deps run test tests clean

-include $(LIB_OBJ:.o=.d) $(APP_OBJ:.o=.d) $(TEST_SRC:tests/%.c=build/deps/tests/%.d)
