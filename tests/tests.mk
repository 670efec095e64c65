# SPDX-License-Identifier: GPL-2.0
# Unit tests and fuzz harness of the XDP program, included by the Makefile.
# `make tests` builds them; run as root:
#   build/tests/test_xdpong            table-driven fixtures
#   build/tests/fuzz_xdpong --frames N [--seed S] [--jobs J]
# `make fuzz` pushes FUZZ_FRAMES (10 million) frames, `make fuzz-short` 100,000.

FUZZ_FRAMES ?= 10000000
FUZZ_SHORT_FRAMES ?= 100000
FUZZ_ARGS ?=

TESTS_PKT_HDRS := tests/lib/packet.h
TESTS_BPF_HDRS := include/xdpong.h $(BUILD)/xdpong.skel.h tests/lib/xdpong_fixture.h
TESTS_LDLIBS := -lbpf -lelf -lz -pthread
# tests/lib: packet.o for every user (tools/tuntap.mk, tools/bench/bench.mk too),
# xdpong_fixture.o for the programs that load build/xdpong.skel.h.
TESTS_LIB := $(BUILD)/tests/packet.o $(BUILD)/tests/xdpong_fixture.o

$(BUILD)/tests/packet.o: tests/lib/packet.c $(TESTS_PKT_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/lib -c $< -o $@

$(BUILD)/tests/xdpong_fixture.o: tests/lib/xdpong_fixture.c $(TESTS_PKT_HDRS) $(TESTS_BPF_HDRS) \
		| $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/lib -c $< -o $@

$(BUILD)/tests/test_xdpong.o: tests/unit/test_xdpong.c $(TESTS_PKT_HDRS) $(TESTS_BPF_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/lib -c $< -o $@

$(BUILD)/tests/fuzz_xdpong.o: tests/fuzz/fuzz_xdpong.c $(TESTS_PKT_HDRS) $(TESTS_BPF_HDRS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/lib -pthread -c $< -o $@

$(BUILD)/tests/test_xdpong: $(BUILD)/tests/test_xdpong.o $(TESTS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TESTS_LDLIBS) -o $@

$(BUILD)/tests/fuzz_xdpong: $(BUILD)/tests/fuzz_xdpong.o $(TESTS_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TESTS_LDLIBS) -o $@

TEST_BINS += $(BUILD)/tests/test_xdpong $(BUILD)/tests/fuzz_xdpong

.PHONY: fuzz fuzz-short
fuzz: $(BUILD)/tests/fuzz_xdpong
	$(Q)$< --frames $(FUZZ_FRAMES) $(FUZZ_ARGS)

fuzz-short: $(BUILD)/tests/fuzz_xdpong
	$(Q)$< --frames $(FUZZ_SHORT_FRAMES) $(FUZZ_ARGS)
