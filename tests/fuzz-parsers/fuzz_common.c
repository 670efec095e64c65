// SPDX-License-Identifier: GPL-2.0
/* Helpers every parser fuzz target links with. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz.h"

FILE *fuzz_report;
jmp_buf fuzz_exit_jmp;
int fuzz_exit_armed;
int fuzz_exit_code;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = dup(STDERR_FILENO);

	(void)argc;
	(void)argv;
	/* Called before libFuzzer closes fd 2 for -close_fd_mask. */
	fuzz_report = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fuzz_report)
		fuzz_report = stderr;
	return 0;
}

void fuzz_exit(int code)
{
	/* An exit outside a guarded call is a real one: keep its meaning. */
	if (!fuzz_exit_armed)
		_Exit(code);
	fuzz_exit_code = code;
	longjmp(fuzz_exit_jmp, 1);
}

void fuzz_getopt_reset(void)
{
	static char arg0[] = "fuzz";
	char *argv[] = { arg0, NULL };

	/* optind 0 makes glibc reinitialise, dropping a half-read "-abc". */
	optind = 0;
	opterr = 0;
	getopt(1, argv, "");
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	size_t n = strnlen((const char *)data, size);
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}
