# SPDX-License-Identifier: GPL-2.0
# Coverage-guided fuzzing (libFuzzer, clang) of the loader's text and
# netlink parsers, included by the Makefile:
#   make fuzz-parsers                 each target FUZZ_SECONDS (60) seconds
#   make fuzz-parsers FUZZ_SECONDS=5
#   tests/fuzz-parsers/smoke.sh       fixed runs from fixed seeds, about 20 s (make test runs it)
# Targets: build/fuzz-parsers/fuzz_{prefix,u64,attach,netlink,config}; crashes are
# saved in build/fuzz-parsers/artifacts/, the grown corpus in .../corpus/.
# The loader's sources are rebuilt here with the sanitizers, main renamed
# (libFuzzer has its own) and exit() routed to fuzz_exit() (fuzz.h); gcc
# is their compiler of record, so clang's own warnings do not stop this.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZP_DIR    := $(BUILD)/fuzz-parsers
FUZZP_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZP_CFLAGS := -g -O1 -fno-omit-frame-pointer $(WARN) -std=gnu11 -D_GNU_SOURCE \
	-DXDPONG_VERSION='"$(VERSION)"' -I$(BUILD) -Iinclude -Ilib -Iloader -Itests/fuzz-parsers
FUZZP_NAMES  := prefix u64 attach netlink config
FUZZP_BINS   := $(patsubst %,$(FUZZP_DIR)/fuzz_%,$(FUZZP_NAMES))
FUZZP_OBJS   := $(patsubst %,$(FUZZP_DIR)/fuzz_%.o,$(FUZZP_NAMES) common)
FUZZP_LOADER := $(patsubst loader/%.c,$(FUZZP_DIR)/loader/%.o,$(LOADER_SRCS)) \
	$(patsubst lib/%.c,$(FUZZP_DIR)/lib/%.o,$(LIB_SRCS))

# `make tests` builds the targets only where clang has libFuzzer; the
# smoke test skips (exit 77) without them.
ifneq ($(filter test tests fuzz-parsers,$(MAKECMDGOALS)),)
FUZZP_PROBE := int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d[0] + (int)n; }
FUZZP_HAVE := $(shell echo '$(FUZZP_PROBE)' | \
	$(FUZZ_CC) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null && echo yes)
ifeq ($(FUZZP_HAVE),yes)
TEST_BINS += $(FUZZP_BINS)
endif
endif

$(FUZZP_DIR) $(FUZZP_DIR)/loader $(FUZZP_DIR)/lib:
	$(Q)mkdir -p $@

$(FUZZP_DIR)/loader/%.o: loader/%.c $(LOADER_HDRS) | $(FUZZP_DIR)/loader
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D) && $(FUZZ_CC) $(FUZZP_CFLAGS) $(FUZZP_SAN) -fsanitize=fuzzer-no-link \
		-Wno-error -Dmain=xdpong_main -Dexit=fuzz_exit -c $< -o $@

# lib/'s parsers (prefix.c, parse.c) are fuzzed too: the same flags.
$(FUZZP_DIR)/lib/%.o: lib/%.c $(LIB_HDRS) | $(FUZZP_DIR)/lib
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZP_CFLAGS) $(FUZZP_SAN) -fsanitize=fuzzer-no-link \
		-Wno-error -c $< -o $@

$(FUZZP_DIR)/libloader.a: $(FUZZP_LOADER)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZP_OBJS): $(FUZZP_DIR)/%.o: tests/fuzz-parsers/%.c tests/fuzz-parsers/fuzz.h $(LOADER_HDRS) \
	| $(FUZZP_DIR)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZP_CFLAGS) $(FUZZP_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

# fuzz_netlink.o includes loader/core/netlink.c.
$(FUZZP_DIR)/fuzz_netlink.o: loader/core/netlink.c

$(FUZZP_BINS): $(FUZZP_DIR)/fuzz_%: $(FUZZP_DIR)/fuzz_%.o $(FUZZP_DIR)/fuzz_common.o \
	$(FUZZP_DIR)/libloader.a
	$(call msg,FUZZ-LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZP_SAN) -fsanitize=fuzzer $^ $(LDLIBS) -o $@

.PHONY: fuzz-parsers fuzz-parsers-bins
fuzz-parsers-bins: $(FUZZP_BINS)

fuzz-parsers: $(FUZZP_BINS)
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) BUILD=$(BUILD) tests/lib/fuzz-parsers.bash
