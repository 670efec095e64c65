# SPDX-License-Identifier: GPL-2.0
# xdpong build. `make` builds build/xdpong; `make test` runs every test;
# `make demo` runs the namespace demo. V=1 shows the commands.

BUILD     ?= build
CLANG     ?= clang
CC        ?= cc
BPFTOOL   ?= bpftool
PREFIX    ?= /usr/local
# The one version: debian/changelog's top entry (tools/version.sh).
VERSION   := $(shell tools/version.sh)
ifeq ($(VERSION),)
$(error no version: tools/version.sh failed)
endif

ARCH      := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
# clang's own system include dirs, after ours, so BPF sees the host's asm/ headers
CLANG_SYS := $(shell $(CLANG) -v -E - </dev/null 2>&1 | \
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

WARN      := -Wall -Wextra -Werror
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(WARN) \
	-Wno-unused-parameter -Ivmlinux -Iinclude $(CLANG_SYS)
# CPPFLAGS, CFLAGS and LDFLAGS from the environment are the loader's too
# (dpkg-buildflags' hardening, under debian/rules); BPF_CFLAGS stay apart.
CFLAGS    ?= -g -O2
CFLAGS    += $(WARN) -std=gnu11 -D_GNU_SOURCE -DXDPONG_VERSION='"$(VERSION)"' \
	-I$(BUILD) -Iinclude
LDLIBS    := -lxdp -lbpf -lelf -lz -lm -ljson-c -lsystemd -linih -lmicrohttpd

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# lib/lib.mk first: the loader's link rule and the fragments name its archive.
include lib/lib.mk

LOADER_SRCS := $(wildcard loader/*.c)
LOADER_OBJS := $(patsubst loader/%.c,$(BUILD)/loader/%.o,$(LOADER_SRCS))
# debian/changelog: the version (XDPONG_VERSION) is compiled in.
LOADER_HDRS := $(wildcard loader/*.h) $(LIB_HDRS) $(BUILD)/xdpong.skel.h \
	$(BUILD)/xdpong_nocas.skel.h $(BUILD)/anchor.skel.h debian/changelog

.DELETE_ON_ERROR:
.PHONY: all clean test tests demo deps fuzz bench install uninstall

# Fragments add to these: tests/*.mk (TEST_BINS), tools/*.mk (TOOL_BINS).
# Both link lib/ (lib/lib.mk); neither links the other.
TEST_BINS :=
TOOL_BINS :=
.DEFAULT_GOAL := all

$(BUILD) $(BUILD)/loader $(BUILD)/tests $(BUILD)/tools:
	$(Q)mkdir -p $@

$(BUILD)/xdpong.bpf.o: bpf/xdpong.bpf.c include/xdpong.h vmlinux/vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/xdpong.skel.h: $(BUILD)/xdpong.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name xdpong_bpf > $@

# The same program without atomic compare-and-exchange, for kernels that
# lack it (5.10, 5.11), whose verifier refuses the instruction even where
# it is never reached. loader/skel.h picks one by probe; its maps,
# programs and variables are the same, so one skeleton type serves both.
$(BUILD)/xdpong_nocas.bpf.o: bpf/xdpong.bpf.c include/xdpong.h vmlinux/vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DXDPONG_NO_CMPXCHG -c $< -o $@

$(BUILD)/xdpong_nocas.skel.h: $(BUILD)/xdpong_nocas.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name xdpong_nocas_bpf > $@

# What xdpong is verified against before it joins libxdp's dispatcher
# (bpf/anchor.bpf.c).
$(BUILD)/anchor.bpf.o: bpf/anchor.bpf.c vmlinux/vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/anchor.skel.h: $(BUILD)/anchor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name anchor_bpf > $@

$(BUILD)/loader/%.o: loader/%.c $(LOADER_HDRS) | $(BUILD)/loader
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/xdpong: $(LOADER_OBJS) $(XDPONG_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Both install what they need first (Debian/Ubuntu, as root), then build.
test:
	$(Q)tools/deps.sh
	$(Q)tools/vm/deps.sh
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)tests/run.sh

demo:
	$(Q)tools/deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh

deps:
	$(Q)tools/deps.sh

clean:
	$(call msg,CLEAN,$(BUILD))
	$(Q)rm -rf $(BUILD)

# `make install [PREFIX=/usr] [DESTDIR=/stage]`. The BPF object is built
# into the binary (skeleton), so there is no .bpf.o to install. The units
# get SBINDIR and the man page VERSION where they say @SBINDIR@, @VERSION@.
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR     ?= $(PREFIX)/lib/systemd/system
EXAMPLEDIR  ?= $(PREFIX)/share/doc/xdpong/examples

install: $(BUILD)/xdpong
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(BUILD)/xdpong $(DESTDIR)$(SBINDIR)/xdpong
	$(Q)install -d $(DESTDIR)$(MANDIR)/man8
	$(Q)sed 's|@VERSION@|$(VERSION)|g' man/xdpong.8 > $(DESTDIR)$(MANDIR)/man8/xdpong.8 && \
		chmod 0644 $(DESTDIR)$(MANDIR)/man8/xdpong.8
	$(Q)install -D -m 0644 completion/xdpong.bash $(DESTDIR)$(BASHCOMPDIR)/xdpong
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)for u in xdpong.service xdpong@.service; do \
		sed 's|@SBINDIR@|$(SBINDIR)|g' systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	$(Q)install -D -m 0644 systemd/xdpong.conf.example $(DESTDIR)$(EXAMPLEDIR)/xdpong.conf

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/xdpong $(DESTDIR)$(MANDIR)/man8/xdpong.8 \
		$(DESTDIR)$(BASHCOMPDIR)/xdpong $(DESTDIR)$(UNITDIR)/xdpong@.service \
		$(DESTDIR)$(UNITDIR)/xdpong.service $(DESTDIR)$(EXAMPLEDIR)/xdpong.conf

-include $(wildcard tests/*.mk tools/*.mk tools/*/*.mk)

all: $(BUILD)/xdpong $(TOOL_BINS)
tests: $(TEST_BINS)

