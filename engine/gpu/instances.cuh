/*
 * instances.cuh
 *	  Runtime choices -> template instances, for the host side of the
 *	  kernels' launches.
 *
 * Each for_* function maps one runtime value to a compile-time one and
 * calls f with it: a key type as KeyOf<Key>, everything else as a
 * std::integral_constant, read back as decltype(x)::value.  Nesting them
 * in a generic lambda spells out, in one place per launch, exactly which
 * instances a file compiles; only the branches written here exist, so a
 * combination left out (a merge with values, a count with values) is
 * never instantiated.
 */
#ifndef SETOPS_GPU_INSTANCES_CUH
#define SETOPS_GPU_INSTANCES_CUH

#include <stdint.h>
#include <type_traits>

#include "gpu_internal.h"

namespace setops
{

template <typename K>
struct KeyOf
{
	typedef K	type;
};

template <SetopsOp O>
using OpConstant = std::integral_constant<SetopsOp, O>;

/* bytes of the words values move in (0: keys only) */
template <int W>
using WordConstant = std::integral_constant<int, W>;

template <typename F>
static inline cudaError_t
for_key(SetopsKeyType key_type, F &&f)
{
	if (key_type == SETOPS_KEY_INT64)
		return f(KeyOf<int64_t>());
	return f(KeyOf<int32_t>());
}

template <typename F>
static inline cudaError_t
for_bool(bool b, F &&f)
{
	return b ? f(std::true_type()) : f(std::false_type());
}

template <typename F>
static inline cudaError_t
for_op(SetopsOp op, F &&f)
{
	switch (op)
	{
		case SETOPS_OP_INTERSECT:
			return f(OpConstant<SETOPS_OP_INTERSECT>());
		case SETOPS_OP_UNION:
			return f(OpConstant<SETOPS_OP_UNION>());
		case SETOPS_OP_DIFFERENCE:
			return f(OpConstant<SETOPS_OP_DIFFERENCE>());
		case SETOPS_OP_SYMDIFF:
			return f(OpConstant<SETOPS_OP_SYMDIFF>());
		case SETOPS_OP_MERGE:
			return f(OpConstant<SETOPS_OP_MERGE>());
	}
	return cudaErrorInvalidValue;
}

/* A count's SetopsGpuCountMode (COUNT_NONE is no count) */
template <typename F>
static inline cudaError_t
for_count_mode(int count_mode, F &&f)
{
	switch (count_mode)
	{
		case SETOPS_GPU_COUNT_INTERSECT:
			return f(std::integral_constant<int, SETOPS_GPU_COUNT_INTERSECT>());
		case SETOPS_GPU_COUNT_OVERLAPS:
			return f(std::integral_constant<int, SETOPS_GPU_COUNT_OVERLAPS>());
		case SETOPS_GPU_COUNT_CONTAINS:
			return f(std::integral_constant<int, SETOPS_GPU_COUNT_CONTAINS>());
	}
	return cudaErrorInvalidValue;
}

/*
 * Values of val_stride bytes (vals NULL: none) move in the widest words
 * the stride is a multiple of: 8, 4 or 1 bytes; f gets the word, 0 for
 * keys only.
 */
template <typename F>
static inline cudaError_t
for_value_word(const void *vals, int val_stride, F &&f)
{
	if (vals == NULL)
		return f(WordConstant<0>());
	if (val_stride % 8 == 0)
		return f(WordConstant<8>());
	if (val_stride % 4 == 0)
		return f(WordConstant<4>());
	return f(WordConstant<1>());
}

/*
 * The tile kernels' layout of an operation: f(duplicates, word).  Only
 * keys alone have a duplicate-free instance (pairs always take the general
 * one: half the instances, and pairs are rare); WithValues false (merges)
 * takes keys alone whatever vals holds.
 */
template <bool WithValues, typename F>
static inline cudaError_t
for_layout(bool duplicates, const void *vals, int val_stride, F &&f)
{
	auto		keys_only = [&]() {
		return for_bool(duplicates, [&](auto dup) {
			return f(dup, WordConstant<0>());
		});
	};

	if constexpr (!WithValues)
		return keys_only();
	else
	{
		if (vals == NULL)
			return keys_only();
		return for_value_word(vals, val_stride, [&](auto word) {
			return f(std::true_type(), word);
		});
	}
}

}								/* namespace setops */

#endif							/* SETOPS_GPU_INSTANCES_CUH */
