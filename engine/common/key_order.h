/*
 * key_order.h
 *	  The input contract of every operation, keys ascending, as one scalar
 *	  scan: the CPU engine's check where AVX2 is not used, and the GPU's
 *	  host side finding the exact place after the device saw disorder.
 *
 * Plain C with no PostgreSQL or CUDA headers (gcc and nvcc include it).
 */
#ifndef SETOPS_KEY_ORDER_H
#define SETOPS_KEY_ORDER_H

#include <stdint.h>

#include "setop_kind.h"

/* Position of the first key smaller than its predecessor, or -1. */
#define SETOPS_DEFINE_FIRST_UNSORTED_SCALAR(SFX, KEY)							\
static inline int64_t															\
setops_first_unsorted_scalar_##SFX(const KEY *a, int64_t n)						\
{																				\
	int64_t		i;																\
																				\
	for (i = 1; i < n; i++)														\
		if (a[i] < a[i - 1])													\
			return i;															\
	return -1;																	\
}

SETOPS_DEFINE_FIRST_UNSORTED_SCALAR(i32, int32_t)
SETOPS_DEFINE_FIRST_UNSORTED_SCALAR(i64, int64_t)

/* The same, by key type, for keys held as void *. */
static inline int64_t
setops_first_unsorted_scalar(SetopsKeyType type, const void *keys, int64_t n)
{
	return type == SETOPS_KEY_INT64 ?
		setops_first_unsorted_scalar_i64((const int64_t *) keys, n) :
		setops_first_unsorted_scalar_i32((const int32_t *) keys, n);
}

#endif							/* SETOPS_KEY_ORDER_H */
