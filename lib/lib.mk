# SPDX-License-Identifier: GPL-2.0
# lib/: the code the loader, tools/ and tests/ share, included by the
# Makefile before the loader's link rule and the fragments. All of them
# link $(XDPONG_LIB) and compile with $(LIB_CFLAGS); lib/ depends on none of
# them (tools/README.md): prefixes (prefix.c), numbers (parse.c), the
# rtnetlink socket (nlsock.c), packets and their checks, helpers.

LIB_SRCS    := $(wildcard lib/*.c)
LIB_OBJS    := $(patsubst lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRCS))
LIB_HDRS    := $(wildcard lib/*.h include/*.h)
LIB_CFLAGS  := -Ilib
XDPONG_LIB  := $(BUILD)/lib/libxdpong.a

$(BUILD)/lib:
	$(Q)mkdir -p $@

$(BUILD)/lib/%.o: lib/%.c $(LIB_HDRS) | $(BUILD)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LIB_CFLAGS) -c $< -o $@

$(XDPONG_LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
