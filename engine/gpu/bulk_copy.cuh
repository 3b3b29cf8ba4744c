/*
 * bulk_copy.cuh
 *	  Global to shared memory copies that no thread waits on: Hopper's bulk
 *	  copy engine (cp.async.bulk, completing on an mbarrier) and, before
 *	  sm_90, the per-thread 16-byte cp.async.
 *
 * With the bulk copy one thread moves a whole contiguous interval with one
 * instruction, where cp.async costs every thread an address, a bounds test
 * and an issue per 16 bytes (measured on an H100: 15% of the count
 * kernel's instructions, test/bench/NOTES.md).  The copy engine then
 * writes shared memory while the block computes; the waiting threads learn
 * of it from the mbarrier's phase.
 */
#ifndef SETOPS_BULK_COPY_CUH
#define SETOPS_BULK_COPY_CUH

#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SETOPS_BULK_COPY 1
#endif

namespace setops
{

__device__ __forceinline__ unsigned
shared_address(const void *p)
{
	return (unsigned) __cvta_generic_to_shared(p);
}

/* ---- sm_80: one 16-byte copy a thread, in commit groups ---- */

__device__ __forceinline__ void
copy_async16(void *shared, const void *global)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n"
				 :: "r"(shared_address(shared)), "l"(global) : "memory");
}

/* One key (4 or 8 bytes): the end of an input, where 16 bytes would read
 * past it. */
template <typename Key>
__device__ __forceinline__ void
copy_async_key(Key *shared, const Key *global)
{
	if (sizeof(Key) == 8)
		asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n"
					 :: "r"(shared_address(shared)), "l"(global) : "memory");
	else
		asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n"
					 :: "r"(shared_address(shared)), "l"(global) : "memory");
}

__device__ __forceinline__ void
copy_async_commit(void)
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most Pending of this thread's committed groups are open. */
template <int Pending>
__device__ __forceinline__ void
copy_async_wait(void)
{
	asm volatile("cp.async.wait_group %0;\n" :: "n"(Pending) : "memory");
}

#ifdef SETOPS_BULK_COPY

/* ---- sm_90: bulk copies completing on an mbarrier ---- */

/* An mbarrier that one arrival (with its transaction bytes) completes. */
__device__ __forceinline__ void
mbar_init(uint64_t *bar)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n"
				 :: "r"(shared_address(bar)) : "memory");
}

/* The initialisation seen by the copy engine (before the barrier that
 * publishes it to the block). */
__device__ __forceinline__ void
mbar_init_fence(void)
{
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* The one arrival of a phase: it completes once `bytes` have landed. */
__device__ __forceinline__ void
mbar_arrive_expect(uint64_t *bar, unsigned bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
				 :: "r"(shared_address(bar)), "r"(bytes) : "memory");
}

/* Wait for the phase of the given parity to complete. */
__device__ __forceinline__ void
mbar_wait(uint64_t *bar, unsigned parity)
{
	unsigned	done;

	do
	{
		asm volatile("{\n\t.reg .pred p;\n\t"
					 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
					 "selp.u32 %0, 1, 0, p;\n\t}\n"
					 : "=r"(done) : "r"(shared_address(bar)), "r"(parity) : "memory");
	} while (!done);
}

/*
 * Shared memory the block read through ordinary loads, about to be
 * rewritten by the copy engine: order the two proxies (in the issuing
 * thread, after the barrier that ended the reads).
 */
__device__ __forceinline__ void
fence_proxy_async_shared(void)
{
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* bytes (a multiple of 16, both addresses 16-byte aligned) from global to
 * shared, counted on bar. */
__device__ __forceinline__ void
bulk_copy_to_shared(void *shared, const void *global, unsigned bytes, uint64_t *bar)
{
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
				 "[%0], [%1], %2, [%3];\n"
				 :: "r"(shared_address(shared)), "l"(global), "r"(bytes),
				 "r"(shared_address(bar)) : "memory");
}

#endif							/* SETOPS_BULK_COPY */

}								/* namespace setops */

#endif							/* SETOPS_BULK_COPY_CUH */
