/*
 * setops.c
 *	  Module load: GUCs and interrupt hooks.
 *
 * _PG_init only registers settings and function pointers.  It never touches
 * CUDA: the library may be loaded by the postmaster (preload), and a CUDA
 * context must not exist in a process that forks backends.
 */
#include "postgres.h"

#include <limits.h>
#include <time.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "setops.h"
#include "cpu/engine.h"
#include "../gpu/setops_gpu.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

int			setops_device = SETOPS_DEVICE_AUTO;
int			setops_gpu_min_elements = 100000;

static const struct config_enum_entry device_options[] = {
	{"auto", SETOPS_DEVICE_AUTO, false},
	{"cpu", SETOPS_DEVICE_CPU, false},
	{"gpu", SETOPS_DEVICE_GPU, false},
	{NULL, 0, false}
};

SetopsTiming setops_last;

double
setops_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* CPU engine hook: may longjmp out of the engine, which holds no state. */
void
setops_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/* GPU callback: never longjmps through C++ frames, only reports. */
static int
gpu_should_stop(void)
{
	return InterruptPending && (QueryCancelPending || ProcDiePending);
}

void
_PG_init(void)
{
	DefineCustomEnumVariable("setops.device",
							 "Where setops runs operations: auto, cpu or gpu.",
							 "auto uses the GPU from setops.gpu_min_elements input "
							 "elements on and falls back to the CPU engine; gpu "
							 "always uses the GPU and fails without one; cpu never "
							 "uses the GPU.",
							 &setops_device,
							 SETOPS_DEVICE_AUTO,
							 device_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("setops.gpu_min_elements",
							"Input elements (summed over the arguments) from "
							"which setops.device = auto uses the GPU.",
							"The default is the crossover measured on an H200 "
							"(test/bench/sql_bench.sql, setops_bench_crossover).",
							&setops_gpu_min_elements,
							100000,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("setops");

	setops_cpu_set_interrupt_hook(setops_check_interrupts);
	setops_gpu_set_interrupt_callback(gpu_should_stop);
}
