/*
 * textbook.h
 *	  The std::set_* loops as a textbook writes them (two cursors, the i-th
 *	  copy of a key in A meeting the i-th in B), and merge: the independent
 *	  reference the unit tests check the engines and the chunk walk against.
 */
#ifndef SETOPS_TEXTBOOK_H
#define SETOPS_TEXTBOOK_H

#include <stdint.h>

#include "../../engine/common/setop_kind.h"

#define DEFINE_TEXTBOOK(SFX, KEY)												\
static inline int64_t																	\
textbook_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb, KEY *out)	\
{																				\
	int64_t		i = 0,															\
				j = 0,															\
				k = 0;															\
																				\
	while (i < na && j < nb)													\
	{																			\
		if (a[i] < b[j])														\
		{																		\
			if (op != SETOPS_OP_INTERSECT)										\
				out[k++] = a[i];												\
			i++;																\
		}																		\
		else if (b[j] < a[i])													\
		{																		\
			if (op == SETOPS_OP_UNION || op == SETOPS_OP_SYMDIFF || op == SETOPS_OP_MERGE)	\
				out[k++] = b[j];												\
			j++;																\
		}																		\
		else																	\
		{																		\
			if (op == SETOPS_OP_INTERSECT || op == SETOPS_OP_UNION)				\
				out[k++] = a[i];												\
			else if (op == SETOPS_OP_MERGE)										\
			{																	\
				out[k++] = a[i];												\
				out[k++] = b[j];												\
			}																	\
			i++;																\
			j++;																\
		}																		\
	}																			\
	if (op != SETOPS_OP_INTERSECT)												\
		while (i < na)															\
			out[k++] = a[i++];													\
	if (op == SETOPS_OP_UNION || op == SETOPS_OP_SYMDIFF || op == SETOPS_OP_MERGE)	\
		while (j < nb)															\
			out[k++] = b[j++];													\
	return k;																	\
}

DEFINE_TEXTBOOK(i32, int32_t)
DEFINE_TEXTBOOK(i64, int64_t)

#endif							/* SETOPS_TEXTBOOK_H */
