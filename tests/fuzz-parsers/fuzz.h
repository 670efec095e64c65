/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets of the loader's parsers. A broken
 * invariant prints what was expected and traps, so libFuzzer saves the
 * input as a crash artifact.
 */
#ifndef XDPONG_FUZZ_H
#define XDPONG_FUZZ_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* stderr as it was at startup: -close_fd_mask=2 silences the loader's
 * messages, not ours. */
extern FILE *fuzz_report;

#define FUZZ_CHECK(cond, ...)                                                    \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(fuzz_report, "invariant broken at %s:%d: %s\n  ", \
				__FILE__, __LINE__, #cond);                      \
			fprintf(fuzz_report, __VA_ARGS__);                       \
			fputc('\n', fuzz_report);                                \
			fflush(fuzz_report);                                     \
			__builtin_trap();                                        \
		}                                                                \
	} while (0)

/*
 * The loader's sources are built for fuzzing with -Dexit=fuzz_exit: a
 * `--help` in a fuzzed command line returns here instead of ending the
 * fuzzer. Set fuzz_exit_armed and setjmp(fuzz_exit_jmp) around the call.
 */
extern jmp_buf fuzz_exit_jmp;
extern int fuzz_exit_armed;
extern int fuzz_exit_code;
void fuzz_exit(int code) __attribute__((noreturn));

/* Forget getopt's state from an earlier parse (glibc keeps a cursor). */
void fuzz_getopt_reset(void);

/* A NUL-terminated copy of data, cut at its first NUL; free() it. */
char *fuzz_cstr(const uint8_t *data, size_t size);

#endif /* XDPONG_FUZZ_H */
