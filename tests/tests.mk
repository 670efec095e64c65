# SPDX-License-Identifier: GPL-2.0
# Unit tests, fuzz harness and TUN/TAP driver of the XDP program, included
# by the Makefile. `make tests` builds them; run as root:
#   build/tests/test_xdpong            table-driven fixtures
#   build/tests/test_stamp             STAMP reflection against its reference
#   build/tests/test_limits            the rate limits across two CPUs
#   build/tests/fuzz_xdpong --frames N [--seed S] [--jobs J]
#   build/tests/tuntap_echo            driven by tests/tuntap/*.sh
# `make fuzz` pushes FUZZ_FRAMES (10 million) frames, `make fuzz-short` 100,000.

FUZZ_FRAMES ?= 10000000
FUZZ_SHORT_FRAMES ?= 100000
FUZZ_ARGS ?=

TESTS_CFLAGS := $(LIB_CFLAGS) -Itests/lib
TESTS_HDRS := $(LIB_HDRS) $(BUILD)/xdpong.skel.h $(BUILD)/xdpong_nocas.skel.h \
	$(BUILD)/xdpong_rxts.skel.h \
	loader/core/core.h loader/up/up.h tests/lib/xdpong_fixture.h tests/lib/stamp_reference.h
TESTS_LDLIBS := -lbpf -lelf -lz -pthread
# tests/lib holds what only tests use: xdpong_fixture.o, for the programs
# that load build/xdpong.skel.h, and reference.o and stamp_reference.o,
# the oracles that judge their echo and STAMP replies (ahead of lib/,
# which they build on). The rest comes from
# lib/ (lib/lib.mk).
TESTS_LIB := $(BUILD)/tests/xdpong_fixture.o $(BUILD)/tests/reference.o \
	$(BUILD)/tests/stamp_reference.o \
	$(BUILD)/loader/core/probe.o $(BUILD)/loader/up/skel.o $(BUILD)/loader/up/ratelimit.o \
	$(XDPONG_LIB)

$(BUILD)/tests/reference.o: tests/lib/reference.c tests/lib/reference.h $(LIB_HDRS) \
		| $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) -c $< -o $@

$(BUILD)/tests/stamp_reference.o: tests/lib/stamp_reference.c tests/lib/stamp_reference.h \
		$(LIB_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) -c $< -o $@

$(BUILD)/tests/xdpong_fixture.o: tests/lib/xdpong_fixture.c $(TESTS_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) -c $< -o $@

$(BUILD)/tests/test_xdpong.o: tests/unit/test_xdpong.c $(TESTS_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) -c $< -o $@

$(BUILD)/tests/test_stamp.o: tests/unit/test_stamp.c $(TESTS_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) -c $< -o $@

$(BUILD)/tests/test_limits.o: tests/unit/test_limits.c $(TESTS_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) -c $< -o $@

$(BUILD)/tests/fuzz_xdpong.o: tests/fuzz-program/fuzz_xdpong.c $(TESTS_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) -pthread -c $< -o $@

# The TUN/TAP driver (tests/tuntap/): tools/tun/userpong.c against the XDP
# program. It links the experiment's library (tools/tun/tun.mk).
$(BUILD)/tests/tuntap_echo.o: tests/tuntap/tuntap_echo.c $(TESTS_HDRS) $(wildcard tools/tun/*.h) \
		| $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) -Itools/tun -c $< -o $@

$(BUILD)/tests/test_xdpong: $(BUILD)/tests/test_xdpong.o $(TESTS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TESTS_LDLIBS) -o $@

$(BUILD)/tests/test_stamp: $(BUILD)/tests/test_stamp.o $(BUILD)/loader/core/clock.o $(TESTS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TESTS_LDLIBS) -lm -o $@

$(BUILD)/tests/test_limits: $(BUILD)/tests/test_limits.o $(TESTS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TESTS_LDLIBS) -o $@

$(BUILD)/tests/fuzz_xdpong: $(BUILD)/tests/fuzz_xdpong.o $(TESTS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TESTS_LDLIBS) -o $@

$(BUILD)/tests/tuntap_echo: $(BUILD)/tests/tuntap_echo.o $(BUILD)/tuntap/libtun.a $(TESTS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TESTS_LDLIBS) -o $@

TEST_BINS += $(BUILD)/tests/test_xdpong $(BUILD)/tests/test_stamp $(BUILD)/tests/test_limits \
	$(BUILD)/tests/fuzz_xdpong \
	$(BUILD)/tests/tuntap_echo

# Many prefixes, and a verdict for each through the attached program
# (tests/netns/max_prefixes.sh).
$(BUILD)/tests/prefix_check: tests/netns/prefix_check.c $(LIB_HDRS) $(XDPONG_LIB) | $(BUILD)/tests
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(CFLAGS) $(TESTS_CFLAGS) $< $(XDPONG_LIB) $(TESTS_LDLIBS) -o $@

TEST_BINS += $(BUILD)/tests/prefix_check

# A program that runs after xdpong in libxdp's dispatcher and counts what
# reaches it (tests/netns/dispatcher.sh).
$(BUILD)/tests/chain_tail.bpf.o: tests/netns/chain_tail.bpf.c vmlinux/vmlinux.h | $(BUILD)/tests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

TEST_BINS += $(BUILD)/tests/chain_tail.bpf.o

# Whether XDP may read CLOCK_TAI, asked of the kernel by bpftool
# (tests/netns/stamp.sh), apart from xdpong's own probe.
$(BUILD)/tests/tai_probe.bpf.o: tests/netns/tai_probe.bpf.c vmlinux/vmlinux.h | $(BUILD)/tests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

TEST_BINS += $(BUILD)/tests/tai_probe.bpf.o

# loader/up/chain.c where no dispatcher is needed: linked with the loader's
# objects, its main() left out.
$(BUILD)/tests/test_chain.o: tests/unit/test_chain.c $(LOADER_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -Iloader -c $< -o $@

$(BUILD)/tests/test_chain: $(BUILD)/tests/test_chain.o \
	$(filter-out $(BUILD)/loader/main.o,$(LOADER_OBJS)) $(XDPONG_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

TEST_BINS += $(BUILD)/tests/test_chain

.PHONY: fuzz fuzz-short
fuzz: $(BUILD)/tests/fuzz_xdpong
	$(Q)$< --frames $(FUZZ_FRAMES) $(FUZZ_ARGS)

fuzz-short: $(BUILD)/tests/fuzz_xdpong
	$(Q)$< --frames $(FUZZ_SHORT_FRAMES) $(FUZZ_ARGS)
