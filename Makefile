# comply: the two set-up commands of the README.
#   make demo   install missing Debian packages, build, run the built-in demo scene
#   make test   build and run the whole test suite, plus an ASan+UBSan build of the tests
# Builds go to build/ (RelWithDebInfo, warnings as errors) and build-asan/ (sanitizers).

DEBS := cmake gcc make pkg-config libyaml-dev python3
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build demo test test-fast test-asan bench clean format

all: build

deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build -j $(JOBS)

demo: build
	./build/comply run -o out/demo
	@echo "demo output written to out/demo/ (bodies.csv, contacts.csv, summary.json)"

test-fast: build
	cd build && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCOMPLY_SANITIZE=ON -DCOMPLY_BENCH=OFF >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -LE slow

test: test-fast test-asan

bench: build
	./build/bench/comply_bench

clean:
	rm -rf build build-asan out

format:
	clang-format -i $$(git ls-files '*.c' '*.h')
