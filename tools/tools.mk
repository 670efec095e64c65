# SPDX-License-Identifier: GPL-2.0
# tools/xdp_pass.bpf.o: an XDP_PASS program for the tests (veth peer in
# native mode, foreign program for the CLI tests).

TOOL_BINS += $(BUILD)/tools/xdp_pass.bpf.o

$(BUILD)/tools/xdp_pass.bpf.o: tools/xdp_pass.bpf.c vmlinux/vmlinux.h | $(BUILD)/tools
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
