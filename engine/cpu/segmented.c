/*
 * segmented.c
 *	  Many set operations at once on the CPU engine: the pairs of a batch
 *	  described by segment descriptors (engine/common/segd.h).
 *
 * The reference and fallback of the GPU's segmented path: pair i's output
 * follows pair i-1's, and out_lengths[i] says how long it is, so the output
 * is itself a concatenation with a descriptor.
 */
#include "engine.h"
#include "engine_internal.h"

#define DEFINE_SEGMENTED(SFX, KEY)												\
int64_t																			\
setops_cpu_setop_segmented_##SFX(SetopsOp op, const KEY *a, const SetopsSegd *as,	\
								 const KEY *b, const SetopsSegd *bs,			\
								 KEY *out, int64_t *out_lengths, int64_t *out_pos)	\
{																				\
	int64_t		k = 0,															\
				since = 0,														\
				i;																\
																				\
	for (i = 0; i < as->nsegs; i++)												\
	{																			\
		int64_t		n = setops_cpu_setop_##SFX(op, a + as->starts[i], as->lengths[i],	\
											   b + bs->starts[i], bs->lengths[i],	\
											   out + k, out_pos ? out_pos + k : NULL);	\
																				\
		out_lengths[i] = n;														\
		k += n;																	\
		/* many pairs below a chunk are long work too */						\
		since += as->lengths[i] + bs->lengths[i];								\
		if (since >= SETOPS_CPU_CHUNK || (i & 4095) == 4095)					\
		{																		\
			setops_cpu_check_interrupts();										\
			since = 0;															\
		}																		\
	}																			\
	return k;																	\
}

DEFINE_SEGMENTED(i32, int32_t)
DEFINE_SEGMENTED(i64, int64_t)

/*
 * One round of a reduction: runs 2k and 2k+1 of cur (m runs, lengths len)
 * into out, an odd last run copied after; the new lengths in out_len.
 * scratch holds 4 * (m / 2) int64.  Returns the new run count.
 */
static int64_t
reduce_round(SetopsOp op, SetopsKeyType type, const char *cur, const int64_t *len, int64_t m,
			 char *out, int64_t *out_len, int64_t *scratch)
{
	size_t		ks = setops_key_size(type);
	int64_t		npairs = m / 2,
				k,
				start,
				n;
	SetopsSegd	as,
				bs;

	as.nsegs = bs.nsegs = npairs;
	as.lengths = scratch;
	bs.lengths = scratch + npairs;
	as.starts = scratch + 2 * npairs;
	bs.starts = scratch + 3 * npairs;
	start = setops_segd_round_pairs(len, m, (int64_t *) as.starts, (int64_t *) as.lengths,
									(int64_t *) bs.starts, (int64_t *) bs.lengths);
	as.total = bs.total = 0;
	for (k = 0; k < npairs; k++)
	{
		as.total += as.lengths[k];
		bs.total += bs.lengths[k];
	}
	n = setops_cpu_setop_segmented(op, type, cur, &as, cur, &bs, out, out_len, NULL);
	if (m % 2 == 1)
	{
		memcpy(out + n * ks, cur + start * ks, len[m - 1] * ks);
		out_len[npairs] = len[m - 1];
	}
	return npairs + m % 2;
}

int
setops_cpu_reduce_rounds(SetopsOp op, SetopsKeyType type, const void *in, const int64_t *lengths,
						 int64_t nruns, void *buf0, void *buf1, int64_t *scratch, int64_t *n)
{
	int64_t    *len = scratch,
			   *next_len = scratch + nruns,
			   *pairs = scratch + 2 * nruns;
	const char *cur = in;
	char	   *bufs[2] = {buf0, buf1};
	int64_t		m = nruns;
	int			r = 0,
				result = -1;

	memcpy(len, lengths, sizeof(int64_t) * nruns);
	while (m > 1)
	{
		int64_t    *t;

		m = reduce_round(op, type, cur, len, m, bufs[r], next_len, pairs);
		cur = bufs[r];
		result = r;
		t = len;
		len = next_len;
		next_len = t;
		r ^= 1;
		setops_cpu_check_interrupts();
	}
	*n = nruns > 0 ? len[0] : 0;
	return result;
}
