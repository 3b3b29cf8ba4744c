/*
 * textbook.h
 *	  The std::set_* loops as a textbook writes them (two cursors, the i-th
 *	  copy of a key in A meeting the i-th in B), and merge: the independent
 *	  reference the unit tests check the engines and the chunk walk against.
 *	  textbook_pos_SFX also gives each output's combined source position
 *	  (A's index, or na + B's index), as the engines report them.
 */
#ifndef SETOPS_TEXTBOOK_H
#define SETOPS_TEXTBOOK_H

#include <stdint.h>

#include "../../engine/common/setop_kind.h"

/* one output: its key, and its source where positions are wanted */
#define TEXTBOOK_PUT(x, src)													\
	do {																		\
		if (pos)																\
			pos[k] = (src);														\
		out[k++] = (x);															\
	} while (0)

#define DEFINE_TEXTBOOK(SFX, KEY)												\
static inline int64_t																	\
textbook_pos_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb, KEY *out,	\
				   int64_t *pos)												\
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
				TEXTBOOK_PUT(a[i], i);											\
			i++;																\
		}																		\
		else if (b[j] < a[i])													\
		{																		\
			if (op == SETOPS_OP_UNION || op == SETOPS_OP_SYMDIFF || op == SETOPS_OP_MERGE)	\
				TEXTBOOK_PUT(b[j], na + j);										\
			j++;																\
		}																		\
		else if (op == SETOPS_OP_MERGE)											\
		{																		\
			/* std::merge: on a tie A's copy first */							\
			TEXTBOOK_PUT(a[i], i);											\
			i++;																\
		}																		\
		else																	\
		{																		\
			if (op == SETOPS_OP_INTERSECT || op == SETOPS_OP_UNION)				\
				TEXTBOOK_PUT(a[i], i);											\
			i++;																\
			j++;																\
		}																		\
	}																			\
	if (op != SETOPS_OP_INTERSECT)												\
		while (i < na)															\
		{																		\
			TEXTBOOK_PUT(a[i], i);												\
			i++;																\
		}																		\
	if (op == SETOPS_OP_UNION || op == SETOPS_OP_SYMDIFF || op == SETOPS_OP_MERGE)	\
		while (j < nb)															\
		{																		\
			TEXTBOOK_PUT(b[j], na + j);											\
			j++;																\
		}																		\
	return k;																	\
}																				\
																				\
static inline int64_t																	\
textbook_##SFX(SetopsOp op, const KEY *a, int64_t na, const KEY *b, int64_t nb, KEY *out)	\
{																				\
	return textbook_pos_##SFX(op, a, na, b, nb, out, NULL);					\
}

DEFINE_TEXTBOOK(i32, int32_t)
DEFINE_TEXTBOOK(i64, int64_t)

#endif							/* SETOPS_TEXTBOOK_H */
