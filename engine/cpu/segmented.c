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
