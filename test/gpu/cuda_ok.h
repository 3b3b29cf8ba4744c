/*
 * cuda_ok.h
 *	  For the GPU test and benchmark runners: stop at the first failed CUDA
 *	  call, saying where.
 */
#ifndef SETOPS_CUDA_OK_H
#define SETOPS_CUDA_OK_H

#include <stdio.h>
#include <stdlib.h>

#define CUDA_OK(call)														\
	do {																	\
		cudaError_t e_ = (call);											\
		if (e_ != cudaSuccess)												\
		{																	\
			fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
			exit(2);														\
		}																	\
	} while (0)

#endif							/* SETOPS_CUDA_OK_H */
