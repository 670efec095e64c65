# SPDX-License-Identifier: GPL-2.0
# tools/tun/: the LLM-as-IP-stack experiment's room (tools/tun/README.md):
# tun-stack, tun-helper and pong-hex, on this folder's echo rules
# (userpong), reply check and TUN helpers, which the tests' driver
# (build/tests/tuntap_echo, tests/tests.mk) links too, as build/tuntap/libtun.a.
# Objects live in $(BUILD)/tuntap/ so no other fragment's pattern rules
# apply to them.

TUN_HDRS   := $(wildcard tools/tun/*.h) $(LIB_HDRS)
TUN_CFLAGS := $(LIB_CFLAGS) -Itools/tun
TUN_LIB    := $(BUILD)/tuntap/libtun.a

$(BUILD)/tuntap:
	$(Q)mkdir -p $@

$(BUILD)/tuntap/%.o: tools/tun/%.c $(TUN_HDRS) | $(BUILD)/tuntap
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TUN_CFLAGS) -c $< -o $@

$(TUN_LIB): $(BUILD)/tuntap/userpong.o $(BUILD)/tuntap/tun.o $(BUILD)/tuntap/reply_check.o
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# tun-stack prints its --stats=json through json-c; tun-helper keeps its
# per-request log in tun_report.c and writes --report through json-c.
$(BUILD)/tools/tun-stack: TUNTAP_LDLIBS := -ljson-c
$(BUILD)/tools/tun-helper: TUNTAP_LDLIBS := -ljson-c
$(BUILD)/tools/tun-helper: $(BUILD)/tuntap/tun_report.o

$(BUILD)/tools/tun-stack $(BUILD)/tools/tun-helper $(BUILD)/tools/pong-hex: \
		$(BUILD)/tools/%: $(BUILD)/tuntap/%.o $(TUN_LIB) $(XDPONG_LIB) | $(BUILD)/tools
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(TUNTAP_LDLIBS) -o $@

TOOL_BINS += $(BUILD)/tools/tun-stack $(BUILD)/tools/tun-helper $(BUILD)/tools/pong-hex
