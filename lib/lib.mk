# SPDX-License-Identifier: GPL-2.0
# lib/: the code tools/ and tests/ share, included by the Makefile before
# their fragments. Both link $(XDPONG_LIB) and compile with $(LIB_CFLAGS);
# lib/ depends on neither of them (tools/README.md). It takes two files of
# the loader's, which depend on nothing: its prefix parser (loader/prefix.c)
# and its rtnetlink socket (loader/nlsock.c), so that there is one of each.

LIB_SRCS    := $(wildcard lib/*.c)
LIB_OBJS    := $(patsubst lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRCS)) $(BUILD)/lib/prefix.o $(BUILD)/lib/nlsock.o
LIB_HDRS    := $(wildcard lib/*.h include/*.h) loader/prefix.h loader/nlsock.h
LIB_CFLAGS  := -Ilib
XDPONG_LIB  := $(BUILD)/lib/libxdpong.a

$(BUILD)/lib:
	$(Q)mkdir -p $@

$(BUILD)/lib/%.o: lib/%.c $(LIB_HDRS) | $(BUILD)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/lib/prefix.o $(BUILD)/lib/nlsock.o: $(BUILD)/lib/%.o: loader/%.c loader/%.h | $(BUILD)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(XDPONG_LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
