/*
 * engine_internal.h
 *	  State shared by the files of the CPU engine (not part of its API).
 */
#ifndef SETOPS_CPU_ENGINE_INTERNAL_H
#define SETOPS_CPU_ENGINE_INTERNAL_H

#include "engine.h"

extern void (*setops_cpu_interrupt_hook) (void);

static inline void
setops_cpu_check_interrupts(void)
{
	if (setops_cpu_interrupt_hook)
		setops_cpu_interrupt_hook();
}

/* SIMD level in effect (detected once, possibly capped by a test). */
extern SetopsSimdLevel setops_cpu_simd_now(void);

#endif							/* SETOPS_CPU_ENGINE_INTERNAL_H */
