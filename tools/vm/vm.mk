# SPDX-License-Identifier: GPL-2.0
# The VM harness (tools/vm/), included by the Makefile. As root:
#   make vmtest                      the test selection on 5.10, 6.1, 6.12
#   make vmtest VM_KERNELS=6.1       on some kernels only
#   make vmtest VM_TESTS="netns/"    another selection (tests/run.sh patterns)
#   make vmcheck                     tools/vm/selftest.sh on each kernel
#   make vmkernels                   download the kernels (cached)
#   make trixie-build                build and unit-test with Debian 13's
#                                    clang 19, libbpf 1.5, libxdp 1.5 (chroot)
# Logs: build/vm-logs/<kernel>/. See tools/vm/README.md.

VM_KERNELS ?= 5.10 6.1 6.12
VM_TESTS ?=

.PHONY: vmtest vmcheck vmkernels vmdeps trixie-build

vmdeps:
	$(Q)tools/vm/deps.sh

vmkernels: vmdeps
	$(Q)tools/vm/kernels.sh fetch $(VM_KERNELS)

vmtest: vmdeps
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)VM_KERNELS="$(VM_KERNELS)" VM_TESTS="$(VM_TESTS)" tools/vm/matrix.sh

vmcheck: vmdeps
	$(Q)VM_KERNELS="$(VM_KERNELS)" tools/vm/matrix.sh -- tools/vm/selftest.sh

trixie-build:
	$(Q)tools/vm/trixie-build.sh
