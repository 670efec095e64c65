# SPDX-License-Identifier: GPL-2.0
# Helpers of the fault tests (tests/faults/*.sh), included by the Makefile:
#   build/tests/faults/flood   ICMP echo flood from an AF_PACKET socket
# The scripts run as root: tests/faults/<name>.sh, exit 0, 1 or 77 (skip).

$(BUILD)/tests/faults:
	$(Q)mkdir -p $@

$(BUILD)/tests/faults/flood: tests/faults/flood.c $(XDPONG_LIB) $(LIB_HDRS) | $(BUILD)/tests/faults
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) $< $(XDPONG_LIB) -o $@

TEST_BINS += $(BUILD)/tests/faults/flood
