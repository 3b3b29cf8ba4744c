/*
 * module.c
 *	  Module load: GUCs and interrupt hooks.
 *
 * _PG_init only registers settings, function pointers and, when preloaded,
 * the GPU service (service/worker.c).  It never touches CUDA: the library may
 * be loaded by the postmaster, and a CUDA context must not exist in a
 * process that forks backends.  Only the service's worker creates one.
 */
#include "postgres.h"

#include <limits.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "setops.h"
#include "exec/exec.h"
#include "service/worker.h"
#include "engine/common/clock_ms.h"
#include "engine/cpu/engine.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

int			setops_device = SETOPS_DEVICE_AUTO;
int			setops_gpu_min_elements = 100000;
int			setops_agg_stream_min_mb = 32;
int			setops_copy_threads = 4;
int			setops_cpu_threads = 0;
bool		setops_batch_read_ahead = true;
int			setops_batch_read_workers = 4;

static const struct config_enum_entry device_options[] = {
	{"auto", SETOPS_DEVICE_AUTO, false},
	{"cpu", SETOPS_DEVICE_CPU, false},
	{"gpu", SETOPS_DEVICE_GPU, false},
	{NULL, 0, false}
};

static const struct config_enum_entry gpu_wait_options[] = {
	{"auto", SETOPS_GPU_WAIT_AUTO, false},
	{"spin", SETOPS_GPU_WAIT_SPIN, false},
	{"yield", SETOPS_GPU_WAIT_YIELD, false},
	{"block", SETOPS_GPU_WAIT_BLOCK, false},
	{NULL, 0, false}
};

SetopsTiming setops_last;

/* A new operation: no time spent yet, on no GPU. */
void
setops_timing_reset(void)
{
	memset(&setops_last, 0, sizeof(setops_last));
	setops_last.gpu = -1;
}

double
setops_now_ms(void)
{
	return setops_clock_ms();
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
	DefineCustomBoolVariable("setops.batch_read_ahead",
							 "Let count batches read their next chunk of rows while "
							 "the GPU counts the current one.",
							 "Off: a chunk's rows are read when its first row is "
							 "reached, so that an error in a later row is raised "
							 "only then (one chunk later).",
							 &setops_batch_read_ahead,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("setops.batch_read_workers",
							"Parallel workers that read a count batch's stored rows "
							"into the GPU's device cache on its first run.",
							"When a partition's first chunk finds its stored rows "
							"missing from the device cache, the rest are read by "
							"this many parallel workers (taken from "
							"max_parallel_workers) and the backend together. 0: "
							"the backend reads them as the batch reaches them.",
							&setops_batch_read_workers,
							4, 0, 64,
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
	DefineCustomIntVariable("setops.copy_threads",
							"Threads, the backend's own included, that share a large "
							"copy into or out of the GPU service's shared memory.",
							"Helper threads only run memcpy, with every signal "
							"blocked, and are joined before the copy returns. "
							"1: the backend copies alone.",
							&setops_copy_threads,
							4,
							1, SETOPS_COPY_THREADS_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("setops.cpu_threads",
							"Threads, the backend's own included, that share a count "
							"of large arrays on the CPU engine.",
							"Counts of 4M elements or more whose keys seldom repeat are "
							"split into chunks on Balanced Path diagonals, four a thread, "
							"which the threads take in turn; "
							"helper threads only count, with every signal blocked, and "
							"are joined before the count returns. 1: the backend alone; "
							"0: half the CPUs the backend may run on, at most 16.",
							&setops_cpu_threads,
							0,
							0, SETOPS_COPY_THREADS_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("setops.agg_stream_min_size",
							"State size from which array_union_agg and "
							"array_merge_agg send their rows to the GPU as they come.",
							"Such an aggregate holds one slot of the GPU service "
							"until its final function, and its rows are kept on the "
							"device rather than in the backend's memory. -1: never.",
							&setops_agg_stream_min_mb,
							32,
							-1, MAX_KILOBYTES / 1024,
							PGC_USERSET,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
	/*
	 * The GPU service, and its settings (they size shared memory, so they
	 * exist only where the library is preloaded).
	 */
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("setops.service_memory",
								"Shared memory through which backends and the GPU "
								"service exchange arrays (MB).",
								"Split into setops.service_slots slots; an operation "
								"larger than a slot goes through in chunks.",
								&setops_service_memory_mb,
								1024,
								16, 1024 * 1024,
								PGC_POSTMASTER,
								GUC_UNIT_MB,
								NULL, NULL, NULL);
		DefineCustomIntVariable("setops.service_slots",
								"Requests the GPU service holds at once.",
								"Each slot gets an equal part of setops.service_memory; a "
								"backend holds one for a whole operation and waits "
								"(interruptibly) while all are taken. -1: one for every "
								"16 MB of setops.service_memory, at least 8 and at most 64.",
								&setops_service_slots,
								-1,
								-1, 1024,
								PGC_POSTMASTER,
								0,
								NULL, NULL, NULL);
		DefineCustomIntVariable("setops.service_streams",
								"Requests the GPU service runs side by side on each GPU.",
								"Each on a CUDA stream and a thread of the service of its "
								"own, so that one request's copies overlap another's "
								"kernel.",
								&setops_service_streams,
								4,
								1, SETOPS_GPU_MAX_STREAMS - 1,
								PGC_POSTMASTER,
								0,
								NULL, NULL, NULL);
		DefineCustomEnumVariable("setops.service_gpu_wait",
								 "How the GPU service's threads wait for the GPU.",
								 "spin: on a core; yield: spinning, but giving the core "
								 "up; block: asleep until the GPU interrupts (frees the "
								 "cores for backends, at a few microseconds a wait); "
								 "auto: CUDA's choice for the executors, and the count "
								 "runners yield.",
								 &setops_service_gpu_wait,
								 SETOPS_GPU_WAIT_AUTO,
								 gpu_wait_options,
								 PGC_POSTMASTER,
								 0,
								 NULL, NULL, NULL);
		DefineCustomBoolVariable("setops.service_coalesce",
								 "Let counts of cached arrays that wait together share "
								 "their trip to the GPU.",
								 "Counts that queue for a GPU while its streams are busy "
								 "go in one segmented launch that writes their answers "
								 "to host memory, and one wait; none waits for company.",
								 &setops_service_coalesce,
								 true,
								 PGC_SIGHUP,
								 0,
								 NULL, NULL, NULL);
		DefineCustomIntVariable("setops.service_poll_us",
								"How long the GPU service looks for the next request "
								"before it sleeps, in microseconds.",
								"Under load requests come closer together than this, so "
								"the service finds them without being woken (each wake-up "
								"waits for a free core); idle, one thread spins this long "
								"after a request.  0: sleep at once.",
								&setops_service_poll_us,
								300,
								0, 10000,
								PGC_SIGHUP,
								0,
								NULL, NULL, NULL);
		DefineCustomIntVariable("setops.service_poll_executors",
								"How many idle executors of each GPU poll for the next "
								"request before they sleep.",
								"The others sleep at once and are woken when requests "
								"queue behind a running one.  Each polling thread keeps "
								"a core busy that backends could use.",
								&setops_service_poll_executors,
								1,
								0, SETOPS_GPU_MAX_STREAMS - 1,
								PGC_SIGHUP,
								0,
								NULL, NULL, NULL);
		DefineCustomIntVariable("setops.service_count_runners",
								"Threads of each GPU that run its counts of cached arrays.",
								"Each keeps setops.service_count_trips shared trips of "
								"counts in flight and polls them all, so that a GPU's "
								"counts keep this many cores waiting for it, not one an "
								"executor.  0: the executors run them.",
								&setops_service_count_runners,
								2,
								0, SETOPS_GPU_MAX_STREAMS - 2,
								PGC_POSTMASTER,
								0,
								NULL, NULL, NULL);
		DefineCustomIntVariable("setops.service_count_trips",
								"Shared trips of counts each count runner keeps in flight.",
								"Each on a CUDA stream of its own.",
								&setops_service_count_trips,
								1,
								1, SETOPS_GPU_MAX_STREAMS - 2,
								PGC_POSTMASTER,
								0,
								NULL, NULL, NULL);
		DefineCustomIntVariable("setops.service_split_min_elements",
								"Operations with at least this many input elements are "
								"split over the GPUs.",
								"An operation on arrays sent with it always; a count of "
								"two arrays in the device cache when every GPU is idle "
								"(each GPU counts a part, its arrays copied there once). "
								"Only with two GPUs or more.  0: never split.",
								&setops_service_split_min_elements,
								4 << 20,
								0, INT_MAX,
								PGC_SIGHUP,
								0,
								NULL, NULL, NULL);
		DefineCustomBoolVariable("setops.service_emulate",
								 "Without a GPU, let the GPU service answer with the "
								 "CPU engine (to test the service on machines without one).",
								 NULL,
								 &setops_service_emulate,
								 false,
								 PGC_POSTMASTER,
								 GUC_NOT_IN_SAMPLE,
								 NULL, NULL, NULL);
		DefineCustomIntVariable("setops.service_emulate_devices",
								"Devices the emulated GPU service shows "
								"(setops.service_emulate).",
								"Each the CPU engine, its buffers in the worker's memory: "
								"for testing what the service does with several GPUs "
								"(placement, copies between devices, splits).",
								&setops_service_emulate_devices,
								1,
								1, 4,
								PGC_POSTMASTER,
								GUC_NOT_IN_SAMPLE,
								NULL, NULL, NULL);
		DefineCustomIntVariable("setops.gpu_cache_size",
								"Device memory the GPU service keeps stored arrays in (MB).",
								"Large stored arrays are kept on the device, keyed by their "
								"TOAST identity, and evicted least recently used first. "
								"-1: a quarter of the GPUs' memory; 0: no cache.",
								&setops_gpu_cache_size_mb,
								-1,
								-1, INT_MAX,
								PGC_SIGHUP,
								GUC_UNIT_MB,
								NULL, NULL, NULL);
		DefineCustomStringVariable("setops.device_weights",
								   "Relative weights of the GPUs, comma-separated (\"2,1\").",
								   "How the GPU service splits a large operation and the "
								   "device cache between the devices.  Empty: in proportion "
								   "to their free memory at service start.",
								   &setops_device_weights,
								   "",
								   PGC_SIGHUP,
								   0,
								   NULL, NULL, NULL);
		setops_service_register();
	}
	MarkGUCPrefixReserved("setops");

	setops_cpu_set_interrupt_hook(setops_check_interrupts);
	setops_gpu_set_interrupt_callback(gpu_should_stop);
}
