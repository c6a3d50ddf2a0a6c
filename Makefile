# keyed_wait patch-series harness.  See README.md.
#   make        - build/linux from base + patches/, then KUnit on UML
#   make check  - every stage (apply, checkpatch, bisect, kunit-uml,
#                 kunit-smp, kunit-kcsan, ...); last line "N passed, N failed"

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

export KERNEL_SRC KW_CACHE QEMU_ACCEL KUNITCONFIGS JOBS CHECKPATCH_IGNORE

STAGES := apply-check checkpatch docs bisect kunit-uml kunit-smp mutants-uml kunit-kcsan vm-squashfs vm-zram harness-tests

# Command for 'make vm' (run as root in a TCG VM booted on build/vm).
VM_CMD ?= uname -a

.PHONY: all base tree export export-check series check $(STAGES) kunit vm vm-kernel bench mutants clean distclean help

all: tree kunit-uml

help:
	@sed -n '/^## Targets/,/^## Variables/p' README.md

base:
	@scripts/fetch-base

tree:
	@scripts/tree

export:
	@scripts/export

export-check:
	@scripts/export-check

series:
	@scripts/series

check:
	@scripts/check

apply-check:
	@scripts/apply-check

checkpatch:
	@scripts/checkpatch

docs:
	@scripts/docs

bisect:
	@scripts/bisect

kunit: kunit-uml kunit-smp kunit-kcsan

kunit-uml:
	@scripts/kunit uml

kunit-smp:
	@scripts/kunit smp

kunit-kcsan:
	@scripts/kunit kcsan

mutants-uml:
	@scripts/mutants -s uml -s smp

harness-tests:
	@tests/run

vm-kernel:
	@command -v vng >/dev/null || scripts/install-vng
	@scripts/vm-build build/linux build/vm

vm: vm-kernel
	@scripts/vm -- bash -c '$(VM_CMD)'

vm-squashfs:
	@scripts/vm-selftest squashfs build/linux build/vm

vm-zram:
	@scripts/vm-selftest zram build/linux build/vm

# Mutation testing: each mutants/*.patch must be caught by its stage.
# MUTANTS_ARGS="-s uml" for one stage (make check runs that one).
mutants:
	@scripts/mutants $(MUTANTS_ARGS)

# Benchmarks (not part of check): broadcast vs stock vs series kernels in TCG
# VMs; results in bench/results/.  BENCH=quick for the short mode.
bench:
	@BENCH=$(or $(BENCH),full) bench/run

# Removes build outputs and out/ but never build/linux if it holds unexported work.
clean:
	@scripts/export-check >/dev/null || { echo "build/linux holds unexported work; 'make export' first (or rm -rf build/linux)"; exit 1; }
	rm -rf build out

distclean: clean
	rm -rf "$${KW_CACHE:-$$HOME/.cache/keyed-wait}/base.git"
