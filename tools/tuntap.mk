# SPDX-License-Identifier: GPL-2.0
# TUN/TAP: the user-space tools tun-stack, tun-helper and pong-hex
# (tools/README.md), on lib/'s echo rules and TUN helpers. Objects live in
# $(BUILD)/tuntap/ so no other fragment's pattern rules apply to them. The
# tests' driver, build/tests/tuntap_echo, is built by tests/tests.mk.

$(BUILD)/tuntap:
	$(Q)mkdir -p $@

$(BUILD)/tuntap/%.o: tools/%.c $(LIB_HDRS) | $(BUILD)/tuntap
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -c $< -o $@

# tun-stack prints its --stats=json through json-c; tun-helper keeps its
# per-request log in tun_report.c and writes --report through json-c.
$(BUILD)/tools/tun-stack: TUNTAP_LDLIBS := -ljson-c
$(BUILD)/tools/tun-helper: TUNTAP_LDLIBS := -ljson-c
$(BUILD)/tools/tun-helper: $(BUILD)/tuntap/tun_report.o
$(BUILD)/tuntap/tun-helper.o $(BUILD)/tuntap/tun_report.o: tools/tun_report.h

$(BUILD)/tools/tun-stack $(BUILD)/tools/tun-helper $(BUILD)/tools/pong-hex: \
		$(BUILD)/tools/%: $(BUILD)/tuntap/%.o $(XDPONG_LIB) | $(BUILD)/tools
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TUNTAP_LDLIBS) -o $@

TOOL_BINS += $(BUILD)/tools/tun-stack $(BUILD)/tools/tun-helper $(BUILD)/tools/pong-hex
