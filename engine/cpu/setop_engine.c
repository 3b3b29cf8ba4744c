/*
 * setop_engine.c
 *	  Entry points of the CPU engine's multiset operations: chunking on
 *	  key-rank-consistent splits, strategy choice, SIMD dispatch; and its
 *	  counts and predicates (count_kernels.h).
 */
#include <string.h>

#include "engine_internal.h"
#include "simd.h"
#include "../common/balanced_path.h"
#include "../common/chunks.h"
#include "../common/key_order.h"

SETOPS_DEFINE_SEARCHES(i32, int32_t, int64_t)
SETOPS_DEFINE_SEARCHES(i64, int64_t, int64_t)

void		(*setops_cpu_interrupt_hook) (void) = NULL;
static SetopsCpuPath forced_path = SETOPS_PATH_AUTO;
static int64_t chunk_size = SETOPS_CPU_CHUNK;
static int	simd_detected = -1;
static int	simd_cap = SETOPS_SIMD_AVX2;

SetopsSimdLevel
setops_cpu_simd_detected(void)
{
	if (simd_detected < 0)
	{
		simd_detected = SETOPS_SIMD_NONE;
#ifdef SETOPS_HAVE_AVX2
		if (setops_avx2_supported())
			simd_detected = SETOPS_SIMD_AVX2;
#endif
	}
	return (SetopsSimdLevel) simd_detected;
}

SetopsSimdLevel
setops_cpu_simd_now(void)
{
	SetopsSimdLevel detected = setops_cpu_simd_detected();

	return (int) detected < simd_cap ? detected : (SetopsSimdLevel) simd_cap;
}

SetopsSimdLevel
setops_cpu_set_simd_level(SetopsSimdLevel level)
{
	simd_cap = level;
	return setops_cpu_simd_now();
}

const char *
setops_cpu_simd_name(void)
{
	return setops_cpu_simd_now() == SETOPS_SIMD_AVX2 ? "avx2" : "scalar";
}

void
setops_cpu_set_interrupt_hook(void (*hook) (void))
{
	setops_cpu_interrupt_hook = hook;
}

void
setops_cpu_force_path(SetopsCpuPath path)
{
	forced_path = path;
}

void
setops_cpu_set_chunk(int64_t chunk)
{
	chunk_size = chunk > 0 ? chunk : SETOPS_CPU_CHUNK;
}

#define simd_now() setops_cpu_simd_now()
#define interrupt_hook setops_cpu_interrupt_hook

#define KEY int32_t
#define SFX i32
#define KEYTYPE SETOPS_KEY_INT32
#include "setop_kernels.h"
#include "count_kernels.h"
#undef KEY
#undef SFX
#undef KEYTYPE

#define KEY int64_t
#define SFX i64
#define KEYTYPE SETOPS_KEY_INT64
#include "setop_kernels.h"
#include "count_kernels.h"
#undef KEY
#undef SFX
#undef KEYTYPE
