/*
 * gpu_internal.h
 *	  Shared by the CUDA files of the GPU backend (not part of its C API).
 */
#ifndef SETOPS_GPU_INTERNAL_H
#define SETOPS_GPU_INTERNAL_H

#include <cuda_runtime.h>

#include "setops_gpu.h"

/* Initialise CUDA once per process; false (with the reason) when unusable. */
bool		gpu_ensure_init(char *errbuf, size_t errlen);

/* Format a CUDA error into errbuf and classify it. */
SetopsGpuStatus gpu_status_from(cudaError_t err, const char *what,
								char *errbuf, size_t errlen);

/* After an error that may be sticky: reset the device so the next call
 * starts from a clean context (pools are dropped with it). */
void		gpu_recover(cudaError_t err);

/* Interrupt callback, or NULL. */
extern SetopsGpuInterruptFn gpu_interrupt_fn;

#endif							/* SETOPS_GPU_INTERNAL_H */
