/*
 * simd.h
 *	  SIMD paths of the CPU engine (internal to extension/cpu).
 *
 * Compiled for the baseline x86-64 target with per-function target
 * attributes; setop_engine.c calls them only after the CPU reported the
 * instruction set at run time, so the library runs on any x86-64.
 */
#ifndef SETOPS_CPU_SIMD_H
#define SETOPS_CPU_SIMD_H

#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SETOPS_HAVE_AVX2 1

/*
 * Intersection (diff = 0) or difference (diff = 1) over SIMD windows.
 * Processes as far as whole windows reach and returns the outputs written;
 * *i_end and *j_end receive a key-rank-consistent point from which the
 * scalar merge finishes.
 */
extern int64_t setops_avx2_isect_diff_i32(int diff,
										  const int32_t *a, int64_t na,
										  const int32_t *b, int64_t nb,
										  int32_t *out, int64_t *pos,
										  int64_t a_base,
										  int64_t *i_end, int64_t *j_end);
extern int64_t setops_avx2_isect_diff_i64(int diff,
										  const int64_t *a, int64_t na,
										  const int64_t *b, int64_t nb,
										  int64_t *out, int64_t *pos,
										  int64_t a_base,
										  int64_t *i_end, int64_t *j_end);

/*
 * Intersection count over SIMD windows, no output: nstreams (1 or
 * SETOPS_AVX2_COUNT_STREAMS) independent streams advance together so that
 * their load-compare-advance chains overlap.  A stream covers a[i, i_end)
 * and b[j, j_end), ending on Balanced Path splits; windows run while every
 * stream has room for one, for at most max_windows rounds, and leave each
 * (i, j) key-rank consistent, k increased by the matches.  Each window
 * also checks its keys' order against their right neighbours.  Returns 0
 * at an order break (the streams' state is then meaningless), 1 when the
 * rounds ran out with room left, 2 when a stream has no room for another
 * window.  Keys a window consumed were all checked; the caller checks the
 * rest.
 */
#define SETOPS_AVX2_COUNT_STREAMS 4

typedef struct SetopsCountStream
{
	int64_t		i,
				j,
				i_end,
				j_end,
				k;
} SetopsCountStream;

extern int	setops_avx2_isect_count_i32(const int32_t *a, const int32_t *b,
										SetopsCountStream *streams, int nstreams,
										int64_t max_windows);
extern int	setops_avx2_isect_count_i64(const int64_t *a, const int64_t *b,
										SetopsCountStream *streams, int nstreams,
										int64_t max_windows);

extern int64_t setops_avx2_first_unsorted_i32(const int32_t *a, int64_t n);
extern int64_t setops_avx2_first_unsorted_i64(const int64_t *a, int64_t n);

extern int	setops_avx2_supported(void);
#endif

#endif							/* SETOPS_CPU_SIMD_H */
