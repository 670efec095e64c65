/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface's own addresses: who answers for a destination, and which
 * sources the kernel would take for its own. Exact lists in .bss first,
 * kept by the loader; the LPM tries for operator prefixes and whatever
 * the lists lack.
 */
#ifndef XDPONG_BPF_ADDRS_H
#define XDPONG_BPF_ADDRS_H

#include "state.h"

/* The origin of the longest prefix holding addr, 0 if none. */
static __always_inline __u32 addr4_origin(__be32 addr)
{
	struct xdpong_addr4_key key = { .prefixlen = 32 };
	struct xdpong_addr_info *info;

	__builtin_memcpy(key.addr, &addr, 4);
	info = bpf_map_lookup_elem(&xdpong_addr4, &key);
	return info ? info->origin : 0;
}

static __always_inline bool addr6_in_trie(const struct in6_addr *addr)
{
	struct xdpong_addr6_key key = { .prefixlen = 128 };

	__builtin_memcpy(key.addr, addr, 16);
	return bpf_map_lookup_elem(&xdpong_addr6, &key) != NULL;
}

/* The live copy of the interface's own addresses, NULL if there is none. */
static __always_inline const struct xdpong_own_addrs *own_addrs_get(void)
{
	const struct xdpong_own_addrs *own = NULL;
	__u32 cur = own_addrs_cur, idx;

	/*
	 * clang folds this test into one on cur - 3, in a register the index
	 * is not derived from, and a verifier before 6.18 keeps no bound on
	 * the index (6.12: "unbounded memory access"). So the index is
	 * masked where the verifier sees it, behind a barrier that keeps the
	 * compiler from dropping the mask as redundant.
	 */
	if (cur == 1 || cur == 2) {
		idx = cur - 1;
		asm volatile("" : "+r"(idx));
		own = &own_addrs[idx & 1];
	}
	/*
	 * And the callers must test the pointer itself: clang 19 otherwise
	 * tests cur again in its place, and 5.10's verifier, which cannot
	 * tie the two, follows a NULL own into the lists ("invalid mem
	 * access"). The barrier hides where own came from.
	 */
	asm volatile("" : "+r"(own));
	return own;
}

/*
 * The lists are searched by XDPONG_OWN_MAX comparisons written out, not by
 * a loop: each offset is a constant the verifier sees, whatever the
 * compiler (clang 19 does not unroll a loop with an early exit, and a
 * loop left rolled is a variable index some verifiers cannot bound).
 */
_Static_assert(XDPONG_OWN_MAX == 8, "own-address lists: one OWN_AT per entry");
#define OWN_EACH(AT) AT(0) AT(1) AT(2) AT(3) AT(4) AT(5) AT(6) AT(7)

/* Is addr (network order) one of the n words of list? */
static __always_inline bool in_list4(const __u8 (*list)[4], __u32 n, __u32 addr)
{
#define OWN4_AT(i)                            \
	if (n > (i) && ld32(list[i]) == addr) \
		return true;
	OWN_EACH(OWN4_AT)
#undef OWN4_AT
	return false;
}

/*
 * Who answers for IPv4 address addr: IFACE, BROADCAST, OPERATOR, CONFIG
 * or 0 (nobody). The exact lists first; the trie for operator prefixes
 * and whatever the lists lack.
 */
static __always_inline __u32 dst4_origin(const struct xdpong_own_addrs *own, __u32 addr)
{
	if (own) {
		if (in_list4(own->v4, own->n4, addr))
			return XDPONG_ADDR_IFACE;
		if (in_list4(own->bcast4, own->n_bcast4, addr))
			return XDPONG_ADDR_BROADCAST;
	}
	return addr4_origin(addr);
}

/*
 * The kernel drops a source that is its own address (accept_local=0) or
 * a subnet broadcast (fib_validate_source: not RTN_UNICAST). Operator
 * prefixes are not its addresses: sources there are answered. The lists
 * are complete for IPv4: no trie lookup when they are there.
 */
static __always_inline bool src4_is_own(const struct xdpong_own_addrs *own, __u32 addr)
{
	__u32 origin;

	if (own)
		return in_list4(own->v4, own->n4, addr) ||
		       in_list4(own->bcast4, own->n_bcast4, addr);
	origin = addr4_origin(addr);
	return origin == XDPONG_ADDR_IFACE || origin == XDPONG_ADDR_BROADCAST;
}

static __always_inline bool addr6_is_local(const struct in6_addr *addr)
{
	const struct xdpong_own_addrs *own = own_addrs_get();

	if (own) {
		__u64 a0 = ld64(addr), a1 = ld64((const void *)addr + 8);
		__u32 n = own->n6;

#define OWN6_AT(i)                                                           \
	if (n > (i) && ld64(own->v6[i]) == a0 && ld64(&own->v6[i][8]) == a1) \
		return true;
		OWN_EACH(OWN6_AT)
#undef OWN6_AT
	}
	return addr6_in_trie(addr);
}

#endif /* XDPONG_BPF_ADDRS_H */
