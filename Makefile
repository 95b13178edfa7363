# comply: the two set-up commands of the README.
#   make demo   install missing Debian packages, build, run the built-in demo scene
#   make test   build and run the whole test suite, plus an ASan+UBSan build of the tests
#   make fuzz   build the libFuzzer harnesses (clang) and run each for FUZZ_SECONDS (fuzz/README.md)
#   make test-extended   make test, the slow tests, the sanitizer build again at full scale, then
#                        make fuzz with 45 s per harness
# Builds go to build/ (Release: -O3 with debug information, warnings as errors) and build-asan/
# (sanitizers).

DEBS := cmake gcc make pkg-config libyaml-dev libsuitesparse-dev zlib1g-dev python3 python3-numpy python3-matplotlib python3-pytest valgrind libopenmpi-dev openmpi-bin gmsh
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build demo test test-fast test-asan test-extended fuzz bench clean format

all: build

deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build -j $(JOBS)

demo: build
	./build/comply run -o out/demo
	@echo "demo output written to out/demo/ (bodies.csv, contacts.csv, summary.json)"

# The tests (tests/CMakeLists.txt): every test but the `slow` ones, in the optimised build, then
# in the sanitizer build at the reduced scale of tests/test.h. The sanitizer build is a Debug
# build (assertions on) at -O1, the usual setting for ASan: 2-3 times faster than -O0.
ASAN_CONFIG := -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCOMPLY_SANITIZE=ON \
  -DCOMPLY_BENCH=OFF
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

test-fast: build
	cd build && ctest --output-on-failure -j $(JOBS) -LE slow

test-asan: deps
	cmake -S . -B build-asan $(ASAN_CONFIG) >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && $(ASAN_ENV) ctest --output-on-failure -j $(JOBS) -LE slow

test: test-fast test-asan

# libFuzzer needs clang; a separate build with ASan+UBSan and coverage instrumentation. The
# harnesses run one after the other (one core); new inputs go to $(FUZZ_BUILD)/corpus/, crashes
# to $(FUZZ_BUILD)/artifacts/ and stop the run. FUZZ_FLAGS adds libFuzzer options.
FUZZ_SECONDS ?= 60
FUZZ_BUILD ?= build-fuzz
FUZZ_PARSERS := scene obj stl ply vtp vtk tetmesh checkpoint resume cli
fuzz:
	@$(MAKE) --no-print-directory deps DEBS="$(DEBS) clang libclang-rt-14-dev"
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOMPLY_FUZZ=ON \
	  -DCOMPLY_TESTS=OFF -DCOMPLY_BENCH=OFF >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_PARSERS))
	@mkdir -p $(FUZZ_BUILD)/artifacts; \
	for p in $(FUZZ_PARSERS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$p; log=$(FUZZ_BUILD)/fuzz-$$p.log; \
	  echo "fuzz_$$p: $(FUZZ_SECONDS) s, log in $$log"; \
	  if ! $(FUZZ_BUILD)/fuzz/fuzz_$$p -max_total_time=$(FUZZ_SECONDS) -dict=fuzz/$$p.dict \
	      -max_len=8192 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
	      -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$p- $(FUZZ_FLAGS) \
	      $(FUZZ_BUILD)/corpus/$$p fuzz/corpus/$$p >$$log 2>&1; then \
	    tail -n 60 $$log; echo "fuzz_$$p: FAILED (see fuzz/README.md to minimise and keep it)"; \
	    exit 1; \
	  fi; \
	  grep -E '^#[0-9]+[[:space:]]+DONE|average_exec_per_sec' $$log; \
	done

# make test, then the slow tests, then every test under the sanitizers at scale 1 (the random
# trials in full and the RUN_LONG physics runs), then the fuzzers
test-extended: test
	cd build && ctest --output-on-failure -j $(JOBS) -L slow
	cd build-asan && CM_TEST_SCALE=1 $(ASAN_ENV) ctest --output-on-failure -j $(JOBS)
	$(MAKE) fuzz FUZZ_SECONDS=45

bench: build
	./build/bench/comply_bench

clean:
	rm -rf build build-asan out

format:
	clang-format -i $$(git ls-files '*.c' '*.h')
