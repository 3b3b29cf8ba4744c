/*
 * testcheck.h
 *	  The assertion macro and counters of the C and CUDA test runners, which
 *	  all end by printing "N passed, N failed".
 */
#ifndef SETOPS_TESTCHECK_H
#define SETOPS_TESTCHECK_H

#include <stdio.h>

static long passed = 0;
static long failed = 0;

/* Count cond; on failure print the message (the first 40 failures). */
#define CHECK(cond, ...)										\
	do {														\
		if (cond)												\
			passed++;											\
		else													\
		{														\
			failed++;											\
			if (failed <= 40)									\
			{													\
				fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
				fprintf(stderr, __VA_ARGS__);					\
				fputc('\n', stderr);							\
			}													\
		}														\
	} while (0)

#endif							/* SETOPS_TESTCHECK_H */
