/*
 * sort.c
 *	  Sorting for array_sort_gpu / array_distinct_gpu on the CPU: LSD radix
 *	  sort with byte digits.
 *
 * Keys are read with the sign bit flipped, so unsigned digit order is
 * signed key order.  One pass counts every digit; a digit that is the same
 * for all keys (common for small value ranges) costs no pass.  Input that
 * is already sorted is detected in one pass and left alone.
 */
#include <string.h>

#include "engine_internal.h"

#define RADIX_BITS 8
#define RADIX_SIZE (1 << RADIX_BITS)
#define INSERTION_MAX 64

#define DEFINE_RADIX_SORT(SFX, KEY, UKEY, NDIGITS, SIGN)						\
static void																	\
insertion_sort_##SFX(KEY *a, int64_t n)										\
{																			\
	int64_t		i;															\
	for (i = 1; i < n; i++)													\
	{																		\
		KEY			x = a[i];												\
		int64_t		j = i;													\
		while (j > 0 && x < a[j - 1])										\
		{																	\
			a[j] = a[j - 1];												\
			j--;															\
		}																	\
		a[j] = x;															\
	}																		\
}																			\
																			\
void																		\
setops_cpu_sort_##SFX(KEY *a, int64_t n, KEY *tmp)							\
{																			\
	int64_t		counts[NDIGITS][RADIX_SIZE];								\
	KEY		   *src = a,													\
			   *dst = tmp;													\
	int64_t		i;															\
	int			d;															\
																			\
	if (n < 2 || setops_cpu_first_unsorted_##SFX(a, n) < 0)					\
		return;																\
	if (n <= INSERTION_MAX)													\
	{																		\
		insertion_sort_##SFX(a, n);											\
		return;																\
	}																		\
	memset(counts, 0, sizeof(counts));										\
	for (i = 0; i < n; i++)													\
	{																		\
		UKEY		u = (UKEY) a[i] ^ (SIGN);								\
		for (d = 0; d < NDIGITS; d++)										\
			counts[d][(u >> (d * RADIX_BITS)) & (RADIX_SIZE - 1)]++;		\
		if ((i & (SETOPS_CPU_CHUNK - 1)) == SETOPS_CPU_CHUNK - 1)			\
			setops_cpu_check_interrupts();									\
	}																		\
	for (d = 0; d < NDIGITS; d++)											\
	{																		\
		int			shift = d * RADIX_BITS;									\
		UKEY		first = ((UKEY) a[0] ^ (SIGN)) >> shift;				\
		int64_t		sum = 0;												\
		int			v;														\
		KEY		   *swap;													\
																			\
		if (counts[d][first & (RADIX_SIZE - 1)] == n)						\
			continue;				/* every key has this digit */			\
		for (v = 0; v < RADIX_SIZE; v++)									\
		{																	\
			int64_t		c = counts[d][v];									\
			counts[d][v] = sum;												\
			sum += c;														\
		}																	\
		for (i = 0; i < n; i++)												\
		{																	\
			UKEY		u = (UKEY) src[i] ^ (SIGN);							\
			dst[counts[d][(u >> shift) & (RADIX_SIZE - 1)]++] = src[i];		\
			if ((i & (SETOPS_CPU_CHUNK - 1)) == SETOPS_CPU_CHUNK - 1)		\
				setops_cpu_check_interrupts();								\
		}																	\
		swap = src;															\
		src = dst;															\
		dst = swap;															\
	}																		\
	if (src != a)															\
		memcpy(a, src, n * sizeof(KEY));									\
}

DEFINE_RADIX_SORT(i32, int32_t, uint32_t, 4, (uint32_t) 1 << 31)
DEFINE_RADIX_SORT(i64, int64_t, uint64_t, 8, (uint64_t) 1 << 63)
