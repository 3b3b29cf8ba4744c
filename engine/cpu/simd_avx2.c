/*
 * simd_avx2.c
 *	  AVX2 paths of the CPU engine: intersection/difference windows and the
 *	  sortedness check.
 *
 * Windows (after Schlegel et al., "Fast sorted-set intersection using SIMD
 * instructions"): load 8 int32 (or 4 int64) keys from each side, compare
 * all pairs (B's window turned by shuffles), compress the selected A lanes
 * with a permutation table, and advance each side past the smaller window
 * maximum.
 *
 * All-pairs comparison is plain set intersection; it equals key-rank
 * matching when neither window repeats a key.  Why that suffices: (i, j) is
 * always a key-rank-consistent point, so a key with unconsumed copies on
 * both sides has had equally many copies consumed on each side, and its
 * copies in the two windows are partners.  Consuming everything up to the
 * smaller window maximum keeps (i, j) consistent.  Windows that repeat a
 * key take a few scalar merge steps instead, which keep (i, j) consistent
 * too, so the two interleave freely.  (The unit tests fail if windows with
 * repeats are let through.)
 */
#include "simd.h"

#ifdef SETOPS_HAVE_AVX2

#include <immintrin.h>

#define AVX2_FN __attribute__((target("avx2,popcnt,bmi")))

/* compress32[m]: lane indices of the set bits of the 8-bit mask m, packed
 * to the front; compress64[m] the same for 4 lanes of int64, as int32
 * pairs. */
static int32_t compress32[256][8];
static int32_t compress64[16][8];

static void
build_tables(void)
{
	int			m,
				lane;

	for (m = 0; m < 256; m++)
	{
		int			t = 0;

		for (lane = 0; lane < 8; lane++)
			if (m & (1 << lane))
				compress32[m][t++] = lane;
		while (t < 8)
			compress32[m][t++] = 0;
	}
	for (m = 0; m < 16; m++)
	{
		int			t = 0;

		for (lane = 0; lane < 4; lane++)
			if (m & (1 << lane))
			{
				compress64[m][t++] = 2 * lane;
				compress64[m][t++] = 2 * lane + 1;
			}
		while (t < 8)
			compress64[m][t++] = 0;
	}
}

int
setops_avx2_supported(void)
{
	static int	supported = -1;

	if (supported < 0)
	{
		__builtin_cpu_init();
		supported = __builtin_cpu_supports("avx2") &&
			__builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi");
		if (supported)
			build_tables();
	}
	return supported;
}

/*
 * Lanes of va equal to some lane of vb (all pairs).  B's window is turned
 * by in-lane shuffles and one swap of its 128-bit halves, not by a chain
 * of cross-lane permutes: the shuffles are independent one-cycle ops, the
 * chain's latency (vpermd is 3 to 8 cycles) bounded the windows.
 */
static inline __attribute__((always_inline)) AVX2_FN __m256i
all_pairs_eq_i32(__m256i va, __m256i vb)
{
	__m256i		vs = _mm256_permute2x128_si256(vb, vb, 1);
	__m256i		m0 = _mm256_or_si256(_mm256_cmpeq_epi32(va, vb),
									 _mm256_cmpeq_epi32(va, _mm256_shuffle_epi32(vb, 0x39)));
	__m256i		m1 = _mm256_or_si256(_mm256_cmpeq_epi32(va, _mm256_shuffle_epi32(vb, 0x4e)),
									 _mm256_cmpeq_epi32(va, _mm256_shuffle_epi32(vb, 0x93)));
	__m256i		m2 = _mm256_or_si256(_mm256_cmpeq_epi32(va, vs),
									 _mm256_cmpeq_epi32(va, _mm256_shuffle_epi32(vs, 0x39)));
	__m256i		m3 = _mm256_or_si256(_mm256_cmpeq_epi32(va, _mm256_shuffle_epi32(vs, 0x4e)),
									 _mm256_cmpeq_epi32(va, _mm256_shuffle_epi32(vs, 0x93)));

	return _mm256_or_si256(_mm256_or_si256(m0, m1), _mm256_or_si256(m2, m3));
}

static inline __attribute__((always_inline)) AVX2_FN __m256i
all_pairs_eq_i64(__m256i va, __m256i vb)
{
	__m256i		vs = _mm256_permute2x128_si256(vb, vb, 1);

	return _mm256_or_si256(
		_mm256_or_si256(_mm256_cmpeq_epi64(va, vb),
						_mm256_cmpeq_epi64(va, _mm256_shuffle_epi32(vb, 0x4e))),
		_mm256_or_si256(_mm256_cmpeq_epi64(va, vs),
						_mm256_cmpeq_epi64(va, _mm256_shuffle_epi32(vs, 0x4e))));
}

/* Up to 8 scalar merge steps for intersection or difference. */
#define SCALAR_STEPS(KEY)													\
	do {																	\
		int			s_;														\
		for (s_ = 0; s_ < 8 && i < na && j < nb; s_++)						\
		{																	\
			KEY			x_ = a[i], y_ = b[j];								\
			int			take_ = diff ? (x_ < y_) : (x_ == y_);				\
			out[k] = x_;													\
			if (pos)														\
				pos[k] = a_base + i;										\
			k += take_;														\
			i += (x_ <= y_);												\
			j += (y_ <= x_);												\
		}																	\
	} while (0)

/* Positions of the selected lanes. */
#define STORE_POSITIONS(sel)												\
	do {																	\
		unsigned	s_ = (sel);												\
		int64_t		t_ = k;													\
		while (s_)															\
		{																	\
			pos[t_++] = a_base + i + __builtin_ctz(s_);						\
			s_ &= s_ - 1;													\
		}																	\
	} while (0)

AVX2_FN int64_t
setops_avx2_isect_diff_i32(int diff, const int32_t *a, int64_t na,
						   const int32_t *b, int64_t nb, int32_t *out,
						   int64_t *pos, int64_t a_base,
						   int64_t *i_end, int64_t *j_end)
{
	const __m256i prev = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6);
	int64_t		i = 0,
				j = 0,
				k = 0;

	while (i + 8 <= na && j + 8 <= nb)
	{
		__m256i		va = _mm256_loadu_si256((const __m256i *) (a + i));
		__m256i		vb = _mm256_loadu_si256((const __m256i *) (b + j));
		__m256i		match,
					vmx;
		unsigned	a_le,
					b_le,
					sel;
		int32_t		mx;

		/* lanes 1..7 must exceed their left neighbour on both sides */
		if ((_mm256_movemask_ps(_mm256_castsi256_ps(
				_mm256_and_si256(_mm256_cmpgt_epi32(va, _mm256_permutevar8x32_epi32(va, prev)),
								 _mm256_cmpgt_epi32(vb, _mm256_permutevar8x32_epi32(vb, prev))))) | 1) != 0xff)
		{
			SCALAR_STEPS(int32_t);
			continue;
		}

		mx = a[i + 7] < b[j + 7] ? a[i + 7] : b[j + 7];
		vmx = _mm256_set1_epi32(mx);
		a_le = ~(unsigned) _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(va, vmx))) & 0xff;
		b_le = ~(unsigned) _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(vb, vmx))) & 0xff;
		match = all_pairs_eq_i32(va, vb);
		sel = (unsigned) _mm256_movemask_ps(_mm256_castsi256_ps(match));
		if (diff)
			sel = a_le & ~sel;

		_mm256_storeu_si256((__m256i *) (out + k),
							_mm256_permutevar8x32_epi32(va,
														_mm256_loadu_si256((const __m256i *) compress32[sel])));
		if (pos)
			STORE_POSITIONS(sel);
		k += __builtin_popcount(sel);
		i += __builtin_popcount(a_le);
		j += __builtin_popcount(b_le);
	}
	*i_end = i;
	*j_end = j;
	return k;
}

AVX2_FN int64_t
setops_avx2_isect_diff_i64(int diff, const int64_t *a, int64_t na,
						   const int64_t *b, int64_t nb, int64_t *out,
						   int64_t *pos, int64_t a_base,
						   int64_t *i_end, int64_t *j_end)
{
	int64_t		i = 0,
				j = 0,
				k = 0;

	while (i + 4 <= na && j + 4 <= nb)
	{
		__m256i		va = _mm256_loadu_si256((const __m256i *) (a + i));
		__m256i		vb = _mm256_loadu_si256((const __m256i *) (b + j));
		__m256i		match,
					vmx;
		unsigned	a_le,
					b_le,
					sel;
		int64_t		mx;

		/* lanes 1..3 must exceed their left neighbour on both sides */
		if ((_mm256_movemask_pd(_mm256_castsi256_pd(
				_mm256_and_si256(_mm256_cmpgt_epi64(va, _mm256_permute4x64_epi64(va, _MM_SHUFFLE(2, 1, 0, 0))),
								 _mm256_cmpgt_epi64(vb, _mm256_permute4x64_epi64(vb, _MM_SHUFFLE(2, 1, 0, 0)))))) | 1) != 0xf)
		{
			SCALAR_STEPS(int64_t);
			continue;
		}

		mx = a[i + 3] < b[j + 3] ? a[i + 3] : b[j + 3];
		vmx = _mm256_set1_epi64x(mx);
		match = all_pairs_eq_i64(va, vb);

		a_le = ~(unsigned) _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(va, vmx))) & 0xf;
		b_le = ~(unsigned) _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(vb, vmx))) & 0xf;
		sel = (unsigned) _mm256_movemask_pd(_mm256_castsi256_pd(match));
		if (diff)
			sel = a_le & ~sel;

		_mm256_storeu_si256((__m256i *) (out + k),
							_mm256_permutevar8x32_epi32(va,
														_mm256_loadu_si256((const __m256i *) compress64[sel])));
		if (pos)
			STORE_POSITIONS(sel);
		k += __builtin_popcount(sel);
		i += __builtin_popcount(a_le);
		j += __builtin_popcount(b_le);
	}
	*i_end = i;
	*j_end = j;
	return k;
}

/*
 * Count windows (see simd.h).  A window at (i, j) loads a[i, i + 8) and
 * the same shifted by one, a[i + 1, i + 9): lane by lane, a descent there
 * is an order break, an equality inside the window (lanes 0..6) a repeat,
 * which the all-pairs compare cannot rank: then a few scalar merge steps,
 * which consume only keys this window checked.  Each window consumes keys
 * up to the smaller of the two window maxima, so the next one starts at or
 * before i + 8 and every pair of neighbours a stream consumes is checked.
 * Room for a window: nine keys on each side (the shifted load's last).
 */
#define COUNT_ROOM(s, LANES) \
	((s)->i + (LANES) + 1 <= (s)->i_end && (s)->j + (LANES) + 1 <= (s)->j_end)

#define COUNT_SCALAR_STEPS(KEY, LANES, s)									\
	do {																	\
		int			t_;														\
		for (t_ = 0; t_ < (LANES); t_++)									\
		{																	\
			KEY			x_ = a[(s)->i], y_ = b[(s)->j];						\
			(s)->k += (x_ == y_);											\
			(s)->i += (x_ <= y_);											\
			(s)->j += (y_ <= x_);											\
		}																	\
	} while (0)

/*
 * One window of stream s; 0 at an order break.  ALL_PAIRS compares all
 * pairs; MASK gives one bit per key.
 */
#define DEFINE_COUNT_WINDOW(SFX, KEY, LANES, CMPGT, CMPEQ, MASK, SET1, ALL_PAIRS)	\
static inline __attribute__((always_inline)) AVX2_FN int					\
count_window_##SFX(const KEY *a, const KEY *b, SetopsCountStream *s)		\
{																			\
	__m256i		va = _mm256_loadu_si256((const __m256i *) (a + s->i));		\
	__m256i		vb = _mm256_loadu_si256((const __m256i *) (b + s->j));		\
	__m256i		na = _mm256_loadu_si256((const __m256i *) (a + s->i + 1));	\
	__m256i		nb = _mm256_loadu_si256((const __m256i *) (b + s->j + 1));	\
	__m256i		match,														\
				vmx;														\
	unsigned	desc,														\
				rep,														\
				a_past,														\
				b_past;														\
	KEY			mx;															\
																			\
	desc = MASK(_mm256_or_si256(CMPGT(va, na), CMPGT(vb, nb)));				\
	rep = MASK(_mm256_or_si256(CMPEQ(va, na), CMPEQ(vb, nb))) &				\
		((1u << ((LANES) - 1)) - 1);										\
	if (desc | rep)															\
	{																		\
		if (desc)															\
			return 0;														\
		COUNT_SCALAR_STEPS(KEY, LANES, s);									\
		return 1;															\
	}																		\
	mx = a[s->i + (LANES) - 1] < b[s->j + (LANES) - 1] ?					\
		a[s->i + (LANES) - 1] : b[s->j + (LANES) - 1];						\
	vmx = SET1(mx);															\
	a_past = MASK(CMPGT(va, vmx));											\
	b_past = MASK(CMPGT(vb, vmx));											\
	match = ALL_PAIRS(va, vb);												\
	s->k += __builtin_popcount(MASK(match));								\
	s->i += (LANES) - __builtin_popcount(a_past);							\
	s->j += (LANES) - __builtin_popcount(b_past);							\
	return 1;																\
}

#define MASK32(v) ((unsigned) _mm256_movemask_ps(_mm256_castsi256_ps(v)))
#define MASK64(v) ((unsigned) _mm256_movemask_pd(_mm256_castsi256_pd(v)))

DEFINE_COUNT_WINDOW(i32, int32_t, 8, _mm256_cmpgt_epi32, _mm256_cmpeq_epi32, MASK32,
					_mm256_set1_epi32, all_pairs_eq_i32)
DEFINE_COUNT_WINDOW(i64, int64_t, 4, _mm256_cmpgt_epi64, _mm256_cmpeq_epi64, MASK64,
					_mm256_set1_epi64x, all_pairs_eq_i64)

/* Four streams in one loop body: their chains are independent, so the
 * core overlaps them; then one stream at a time. */
#define DEFINE_ISECT_COUNT(SFX, KEY, LANES)									\
AVX2_FN int																	\
setops_avx2_isect_count_##SFX(const KEY *a, const KEY *b,					\
							  SetopsCountStream *st, int nstreams,			\
							  int64_t max_windows)							\
{																			\
	int64_t		w = 0;														\
																			\
	if (nstreams == SETOPS_AVX2_COUNT_STREAMS)								\
	{																		\
		while (COUNT_ROOM(&st[0], LANES) && COUNT_ROOM(&st[1], LANES) &&	\
			   COUNT_ROOM(&st[2], LANES) && COUNT_ROOM(&st[3], LANES))		\
		{																	\
			int			ok;													\
																			\
			if (w++ == max_windows)											\
				return 1;													\
			ok = count_window_##SFX(a, b, &st[0]);							\
			ok &= count_window_##SFX(a, b, &st[1]);							\
			ok &= count_window_##SFX(a, b, &st[2]);							\
			ok &= count_window_##SFX(a, b, &st[3]);							\
			if (!ok)														\
				return 0;													\
		}																	\
		return 2;															\
	}																		\
	while (COUNT_ROOM(&st[0], LANES))										\
	{																		\
		if (w++ == max_windows)												\
			return 1;														\
		if (!count_window_##SFX(a, b, &st[0]))								\
			return 0;														\
	}																		\
	return 2;																\
}

DEFINE_ISECT_COUNT(i32, int32_t, 8)
DEFINE_ISECT_COUNT(i64, int64_t, 4)

/*
 * Sortedness: compare each block of 32 keys (16 for int64) with the same
 * block shifted by one, and find the exact position only in the block that
 * fails.
 */
#define DEFINE_FIRST_UNSORTED(SFX, KEY, LANES, CMPGT)						\
AVX2_FN int64_t																\
setops_avx2_first_unsorted_##SFX(const KEY *a, int64_t n)					\
{																			\
	int64_t		i = 0,														\
				t;															\
																			\
	for (; i + 4 * (LANES) + 1 <= n; i += 4 * (LANES))						\
	{																		\
		__m256i		bad = _mm256_setzero_si256();							\
		int			o;														\
																			\
		for (o = 0; o < 4 * (LANES); o += (LANES))							\
			bad = _mm256_or_si256(bad,										\
				CMPGT(_mm256_loadu_si256((const __m256i *) (a + i + o)),	\
					  _mm256_loadu_si256((const __m256i *) (a + i + o + 1))));	\
		if (!_mm256_testz_si256(bad, bad))									\
			break;															\
	}																		\
	for (t = i > 0 ? i : 1; t < n; t++)										\
		if (a[t] < a[t - 1])												\
			return t;														\
	return -1;																\
}

DEFINE_FIRST_UNSORTED(i32, int32_t, 8, _mm256_cmpgt_epi32)
DEFINE_FIRST_UNSORTED(i64, int64_t, 4, _mm256_cmpgt_epi64)

#endif							/* SETOPS_HAVE_AVX2 */
