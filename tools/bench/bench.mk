# SPDX-License-Identifier: GPL-2.0
# tools/bench: `make bench` runs the benchmark (tools/bench/README.md);
# `make bench ARGS=--json` prints JSON instead of the table. Needs root.
# `make bench-build` only builds build/bench/xdpong-bench.

BENCH_DIR  := $(BUILD)/bench
# The cost breakdown: the harness built without one part of the echo path
# each (BENCH_PART_* in leave_out.h), and without all of them.
BENCH_NO   := checks csum addrs counters latency gen trace limits all
BENCH_BPF  := gen sink reflect pass xdpong_cost $(patsubst %,xdpong_cost_no_%,$(BENCH_NO))
BENCH_SKEL := $(patsubst %,$(BENCH_DIR)/%.skel.h,$(BENCH_BPF))
BENCH_SRCS := $(filter-out %.bpf.c,$(wildcard tools/bench/*.c))
BENCH_OBJS := $(patsubst tools/bench/%.c,$(BENCH_DIR)/obj/%.o,$(BENCH_SRCS))
# Frames and checksums come from lib/packet.c, the builder the tests use too.
BENCH_LIB  := $(XDPONG_LIB)
# The limits' rodata as the loader sets it (the cost row with both limits on).
BENCH_LIB  += $(BUILD)/loader/up/ratelimit.o
BENCH_HDRS := $(wildcard tools/bench/*.h) include/xdpong.h
BENCH_BIN  := $(BENCH_DIR)/xdpong-bench

.PHONY: bench bench-build

$(BENCH_DIR) $(BENCH_DIR)/obj:
	$(Q)mkdir -p $@

$(BENCH_DIR)/%.bpf.o: tools/bench/%.bpf.c $(BENCH_HDRS) vmlinux/vmlinux.h | $(BENCH_DIR)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The cost harness compiles the product's packet path (bpf/*.h) into itself.
$(BENCH_DIR)/xdpong_cost.bpf.o: $(BPF_HDRS)

$(BENCH_DIR)/xdpong_cost_no_%.bpf.o: tools/bench/xdpong_cost.bpf.c $(BPF_HDRS) \
		$(BENCH_HDRS) vmlinux/vmlinux.h | $(BENCH_DIR)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DBENCH_LEAVE_OUT=BENCH_PART_$(shell echo $* | tr a-z A-Z) \
		-c $< -o $@

# The XDP_PASS floor is the tests' program (bench.mk listed: older builds hold another's).
$(BENCH_DIR)/pass.bpf.o: tools/xdp_pass.bpf.c vmlinux/vmlinux.h tools/bench/bench.mk | $(BENCH_DIR)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BENCH_DIR)/%.skel.h: $(BENCH_DIR)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BENCH_DIR)/obj/%.o: tools/bench/%.c $(BENCH_HDRS) $(LIB_HDRS) $(BENCH_SKEL) \
		$(BUILD)/xdpong.skel.h | $(BENCH_DIR)/obj
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -I$(BENCH_DIR) -Itools/bench $(LIB_CFLAGS) -c $< -o $@

$(BENCH_BIN): $(BENCH_OBJS) $(BENCH_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -lm -o $@

bench-build: $(BENCH_BIN)

bench: $(BUILD)/xdpong $(BENCH_BIN)
	$(Q)tools/bench/run.sh $(ARGS)
