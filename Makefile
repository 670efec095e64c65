# SPDX-License-Identifier: GPL-2.0
# xdpong build. `make` builds build/xdpong; `make test` runs every test;
# `make demo` runs the namespace demo. V=1 shows the commands.

BUILD     ?= build
CLANG     ?= clang
CC        ?= cc
BPFTOOL   ?= bpftool
# xdpong(8) is written in reStructuredText (man/xdpong.8.rst) and built
# with rst2man, from Debian's python3-docutils, as bpftool's man pages are:
# prose with a few marks, pleasant to edit and to review in a diff, where
# hand-written roff was neither. `rst2man --halt=warning` fails the build
# on a markup mistake instead of rendering it.
RST2MAN   ?= rst2man
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

# The loader's floors, bottom up (loader/core/core.h says what each owns;
# tests/style/layers.sh holds each to the headers of the floors below it).
LOADER_FLOORS := core up service cmd
LOADER_SRCS := $(wildcard $(patsubst %,loader/%/*.c,$(LOADER_FLOORS))) loader/main.c
LOADER_OBJS := $(patsubst loader/%.c,$(BUILD)/loader/%.o,$(LOADER_SRCS))
# debian/changelog: the version (XDPONG_VERSION) is compiled in.
LOADER_HDRS := $(wildcard loader/*/*.h) $(LIB_HDRS) $(BUILD)/xdpong.skel.h \
	$(BUILD)/xdpong_nocas.skel.h $(BUILD)/xdpong_rxts.skel.h $(BUILD)/anchor.skel.h \
	debian/changelog

.DELETE_ON_ERROR:

# Before the first compile, name the packages a build needs that are
# missing, and how to get them, rather than fail on the first header not
# found. tools/deps.sh --check probes the commands and headers the build
# uses (silent when all is there). It runs while the first outputs of each
# toolchain are missing, so a built tree pays nothing; the goals that
# install the packages themselves (test, demo, deps) skip it.
DEPS_PROBED := $(BUILD)/xdpong.bpf.o $(BUILD)/man/xdpong.8
ifeq ($(filter-out all tests install $(BUILD)/%,$(or $(MAKECMDGOALS),all)),)
ifneq ($(words $(wildcard $(DEPS_PROBED))),$(words $(DEPS_PROBED)))
ifneq ($(DEPS_CHECK),0)
ifneq ($(shell CC="$(CC)" CLANG="$(CLANG)" BPFTOOL="$(BPFTOOL)" RST2MAN="$(RST2MAN)" \
	CPPFLAGS="$(CPPFLAGS)" tools/deps.sh --check >&2 && echo ok),ok)
$(error missing build dependencies (above); DEPS_CHECK=0 builds without this check)
endif
endif
endif
endif
.PHONY: all clean test tests demo deps fuzz bench install uninstall

# Fragments add to these: tests/*.mk (TEST_BINS), tools/*.mk (TOOL_BINS).
# Both link lib/ (lib/lib.mk); neither links the other.
TEST_BINS :=
TOOL_BINS :=
.DEFAULT_GOAL := all

$(BUILD) $(BUILD)/loader $(BUILD)/tests $(BUILD)/tools $(BUILD)/man:
	$(Q)mkdir -p $@

# The program: its entry points in bpf/xdpong.bpf.c, its packet path in the
# headers beside it (bpf/wire.h lists them).
BPF_HDRS  := $(wildcard bpf/*.h) include/xdpong.h

$(BUILD)/xdpong.bpf.o: bpf/xdpong.bpf.c $(BPF_HDRS) vmlinux/vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/xdpong.skel.h: $(BUILD)/xdpong.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name xdpong_bpf > $@

# The same program without atomic compare-and-exchange, for kernels that
# lack it (5.10, 5.11), whose verifier refuses the instruction even where
# it is never reached. loader/up/skel.c picks one by probe; its maps,
# programs and variables are the same, so one skeleton type serves both.
$(BUILD)/xdpong_nocas.bpf.o: bpf/xdpong.bpf.c $(BPF_HDRS) vmlinux/vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DXDPONG_NO_CMPXCHG -c $< -o $@

$(BUILD)/xdpong_nocas.skel.h: $(BUILD)/xdpong_nocas.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name xdpong_nocas_bpf > $@

# The same program taking STAMP's T2 from the driver (--stamp-driver,
# bpf/rxts.h): a kernel that has the kfunc refuses it unless it is loaded
# bound to the interface, so it is a build of its own, never the usual one.
# loader/up/skel.c opens it through struct xdpong_bpf, as xdpong_nocas.
$(BUILD)/xdpong_rxts.bpf.o: bpf/xdpong.bpf.c $(BPF_HDRS) vmlinux/vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DXDPONG_STAMP_RXTS -c $< -o $@

$(BUILD)/xdpong_rxts.skel.h: $(BUILD)/xdpong_rxts.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name xdpong_rxts_bpf > $@

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
	$(Q)mkdir -p $(@D) && $(CC) $(CPPFLAGS) $(CFLAGS) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/xdpong: $(LOADER_OBJS) $(XDPONG_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# xdpong(8), with the version of debian/changelog where it says @VERSION@.
$(BUILD)/man/xdpong.8: man/xdpong.8.rst debian/changelog | $(BUILD)/man
	$(call msg,RST2MAN,$@)
	$(Q)$(RST2MAN) --halt=warning $< $@.tmp && \
		sed 's|@VERSION@|$(VERSION)|g' $@.tmp > $@ && rm -f $@.tmp

# Both install what they need first (Debian/Ubuntu, as root), then build.
# The phases, each timed (tools/make-test.sh): deps, build, every test.
test:
	$(Q)MAKE="$(MAKE)" tools/make-test.sh

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
# get SBINDIR where they say @SBINDIR@; the man page is built with the version.
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR     ?= $(PREFIX)/lib/systemd/system
EXAMPLEDIR  ?= $(PREFIX)/share/doc/xdpong/examples

install: $(BUILD)/xdpong $(BUILD)/man/xdpong.8
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(BUILD)/xdpong $(DESTDIR)$(SBINDIR)/xdpong
	$(Q)install -D -m 0644 $(BUILD)/man/xdpong.8 $(DESTDIR)$(MANDIR)/man8/xdpong.8
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

all: $(BUILD)/xdpong $(BUILD)/man/xdpong.8 $(TOOL_BINS)
tests: $(TEST_BINS)

