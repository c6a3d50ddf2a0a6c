# keyed_wait patch-series harness.  See README.md.
#   make deps   - install the Debian packages and virtme-ng (root)
#   make        - build/linux from base + patches/, then KUnit on UML
#   make check  - every stage (scripts/check); last line "N passed, N failed"

SHELL := /bin/bash
.DEFAULT_GOAL := all

# Tunables (environment or command line):
#   KERNEL_SRC    use this linux 7.3 git tree / source dir as the base
#   KW_CACHE      cache dir (default ~/.cache/keyed-wait)
#   QEMU_ACCEL    "kvm" lets kunit-kcsan use KVM (default: TCG only)
#   KUNITCONFIGS  kunitconfig paths relative to build/linux (space separated)
#   JOBS          parallel make jobs (default: nproc)
JOBS ?= $(shell nproc)
KUNITCONFIGS ?=

# checkpatch.pl --ignore list, comma separated.  Every entry needs a reason:
#   UNKNOWN_COMMIT_ID: the base is Debian's source tarball, a single commit
#     with no upstream history, so checkpatch cannot look up the upstream
#     commits that commit messages cite (e.g. f6f47a9ca82b, 2554db916586).
#     It still checks their format (GIT_COMMIT_ID).
#   FILE_PATH_CHANGES: "added files, does MAINTAINERS need updating?" is a
#     question checkpatch asks of every patch that adds a file.  The zram
#     patches add files to directories MAINTAINERS already lists; instead,
#     scripts/checkpatch fails if an added file has no MAINTAINERS section
#     other than THE REST (get_maintainer.pl --sections).
CHECKPATCH_IGNORE ?= UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES

export KERNEL_SRC KW_CACHE QEMU_ACCEL KUNITCONFIGS JOBS CHECKPATCH_IGNORE SERIES_VERSION SERIES_PREV

# Every target that needs the tools first runs $(PREFLIGHT): the dependency
# check (scripts/deps --check, ~0.05 s), which fails with the one command
# that installs what is missing.  Plain "make" (or "make all") as root
# installs them instead (make deps).
PREFLIGHT := deps-check
ifeq ($(filter-out all,$(MAKECMDGOALS))$(shell id -u),0)
PREFLIGHT := deps
endif

# Order: $(PREFLIGHT), then base (the cached base repo), then build/linux,
# then what tests it; declared below, so any target alone runs what it
# needs first.  The targets also share build dirs (build/linux,
# build/series-src, build/kunit-uml, build/vm...), so they never run side
# by side: make -jN is safe and runs them one at a time (the builds inside
# use JOBS).
.NOTPARALLEL:

# The stages of make check, in order: scripts/check holds the list and each
# stage's command; every stage is also a target of its own.
STAGES := $(shell scripts/check --list)

# Command for 'make vm' (run as root in a TCG VM booted on build/vm).
VM_CMD ?= uname -a

.PHONY: all deps deps-check base tree have-tree export export-check series check $(STAGES) kunit vm vm-kernel bench mutants clean distclean help

all: tree kunit-uml

deps:
	@scripts/deps

deps-check:
	@scripts/deps --check

help:
	@sed -n '/^## Targets/,/^## Variables/p' README.md

base: $(PREFLIGHT)
	@scripts/fetch-base

tree: base
	@scripts/tree

# build/linux exists (scripts/tree if not); the stages below test it as it
# is, also when it holds unexported work ("make tree" refreshes it).
have-tree: base
	@[[ -d "$${BUILD:-build}/linux/.git" ]] || scripts/tree

export:
	@scripts/export

export-check:
	@scripts/export-check

series:
	@scripts/series

check: base
	@scripts/check

# What each stage needs first (scripts/check runs them in its order).
shellcheck: $(PREFLIGHT)
harness-tests apply-check checkpatch docs bisect: base
kunit-uml kunit-smp kunit-kcsan kunit-rt mutants-uml vm-squashfs vm-zram vm-raid5: have-tree
mutants vm-kernel: have-tree

$(STAGES):
	@scripts/check --run $@

kunit: kunit-uml kunit-smp kunit-kcsan kunit-rt

vm-kernel:
	@scripts/vm-build

vm: vm-kernel
	@scripts/vm -- bash -c '$(VM_CMD)'

# Mutation testing: each mutants/*.patch must be caught by its stage.
# MUTANTS_ARGS="-s uml" for one stage (make check runs that one).
mutants:
	@scripts/mutants $(MUTANTS_ARGS)

# Benchmarks (not part of check): broadcast vs stock vs series kernels in TCG
# VMs; results in bench/results/.  BENCH=quick for the short mode.
bench: base
	@BENCH=$(or $(BENCH),full) bench/run

# Removes build outputs and out/ but never build/linux if it holds unexported work.
clean:
	@scripts/export-check >/dev/null || { echo "build/linux holds unexported work; 'make export' first (or rm -rf build/linux)"; exit 1; }
	rm -rf build out

distclean: clean
	@bash -c '. scripts/lib.sh && echo "rm -rf $$KW_BASE_REPO" && rm -rf "$$KW_BASE_REPO"'
