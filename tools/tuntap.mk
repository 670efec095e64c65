# SPDX-License-Identifier: GPL-2.0
# TUN/TAP: the user-space tools tun-stack, tun-helper and pong-hex
# (tools/README.md) and the test driver build/tests/tuntap_echo
# (tests/tuntap/). Objects live in $(BUILD)/tuntap/ so no other fragment's
# pattern rules apply to them.

TUNTAP_CFLAGS := -Itools -Itests/lib
TUNTAP_HDRS := tools/userpong.h tools/reply_check.h tools/tun_report.h tests/lib/packet.h \
	include/xdpong.h
# tests/lib's objects come from tests/tests.mk.
TUNTAP_LIB := $(BUILD)/tuntap/userpong.o $(BUILD)/tests/packet.o

$(BUILD)/tuntap:
	$(Q)mkdir -p $@

$(BUILD)/tuntap/%.o: tools/%.c $(TUNTAP_HDRS) | $(BUILD)/tuntap
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TUNTAP_CFLAGS) -c $< -o $@

$(BUILD)/tuntap/tuntap_echo.o: tests/tuntap/tuntap_echo.c $(TUNTAP_HDRS) tests/lib/xdpong_fixture.h \
		$(BUILD)/xdpong.skel.h | $(BUILD)/tuntap
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TUNTAP_CFLAGS) -c $< -o $@

# tun-helper and pong-hex share the reply check; tun-helper's report is JSON.
$(BUILD)/tools/tun-helper $(BUILD)/tools/pong-hex: $(BUILD)/tuntap/reply_check.o
$(BUILD)/tools/tun-helper: $(BUILD)/tuntap/tun_report.o
$(BUILD)/tools/tun-helper: TUNTAP_LDLIBS := -ljson-c

$(BUILD)/tools/tun-stack $(BUILD)/tools/tun-helper $(BUILD)/tools/pong-hex: \
		$(BUILD)/tools/%: $(BUILD)/tuntap/%.o $(TUNTAP_LIB) | $(BUILD)/tools
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TUNTAP_LDLIBS) -o $@

$(BUILD)/tests/tuntap_echo: $(BUILD)/tuntap/tuntap_echo.o $(TUNTAP_LIB) \
		$(BUILD)/tests/xdpong_fixture.o | $(BUILD)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -lbpf -lelf -lz -o $@

TOOL_BINS += $(BUILD)/tools/tun-stack $(BUILD)/tools/tun-helper $(BUILD)/tools/pong-hex
TEST_BINS += $(BUILD)/tests/tuntap_echo
