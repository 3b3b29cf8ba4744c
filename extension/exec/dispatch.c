/*
 * dispatch.c
 *	  Where an operation runs: the CPU engine or the GPU.
 *
 * setops.device = cpu     always the CPU engine;
 *                 gpu     always the GPU; ERROR when none is usable or the
 *                         GPU fails (with the CUDA error text);
 *                 auto    counts, operations (keys, packed results, pairs)
 *                         and sorts: where this backend has seen calls of
 *                         the kind and size answered sooner, or with the
 *                         CPUs busy cost it less CPU time (route_plan
 *                         below, learnt as calls complete); until it has,
 *                         and for batches and aggregates, the GPU from
 *                         setops.gpu_min_elements elements on (inputs
 *                         summed).  Any GPU failure falls back to
 *                         the CPU engine, logged once per backend at LOG and
 *                         afterwards at DEBUG1.
 * Both sides give identical results; users never see two behaviours.
 * The GPU is reached through the cluster's GPU service (service/client.h): this
 * backend never creates a CUDA context.
 */
#include "postgres.h"

#include <time.h>

#include "common/pg_prng.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"

#include "setops.h"
#include "args/args.h"
#include "exec/exec.h"
#include "service/client.h"
#include "engine/cpu/engine.h"
#include "engine/cpu/packed_codec.h"

static bool gpu_failure_logged = false;

/* Is the GPU to run this?  ERRORs in gpu mode when none is usable. */
bool
setops_gpu_usable(const char *fname, int64 nelems)
{
	char		errbuf[SETOPS_GPU_ERRLEN];

	switch ((SetopsDevice) setops_device)
	{
		case SETOPS_DEVICE_CPU:
			setops_last.reason = "setops.device is cpu";
			return false;
		case SETOPS_DEVICE_AUTO:
			/* small inputs never initialise CUDA */
			setops_last.reason = "auto: fewer than setops.gpu_min_elements elements";
			if (nelems < setops_gpu_min_elements)
				return false;
			setops_last.reason = "auto: at least setops.gpu_min_elements elements";
			return setops_service_device_count(errbuf, sizeof(errbuf)) > 0;
		case SETOPS_DEVICE_GPU:
			setops_last.reason = "setops.device is gpu";
			setops_service_wait_ready();
			if (setops_service_device_count(errbuf, sizeof(errbuf)) > 0)
				return true;
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("%s: setops.device is \"gpu\" but no GPU is usable", fname),
					 errdetail("%s", errbuf),
					 errhint("Set setops.device to \"auto\" or \"cpu\" to use the CPU engine.")));
	}
	return false;
}

/*
 * A GPU call did not succeed.  Returns to let the CPU answer (auto), or
 * raises an ERROR (gpu mode, or a cancel).
 */
void
setops_gpu_failed(const char *fname, SetopsGpuStatus status, const char *errbuf)
{
	if (status == SETOPS_GPU_CANCELLED)
	{
		CHECK_FOR_INTERRUPTS();
		/* the interrupt was consumed elsewhere: treat as a failure */
	}
	if (setops_device == SETOPS_DEVICE_GPU)
		ereport(ERROR,
				(errcode(status == SETOPS_GPU_OUT_OF_MEMORY ?
						 ERRCODE_OUT_OF_MEMORY : ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
				 errmsg("%s: the GPU failed: %s", fname, errbuf),
				 errhint("Set setops.device to \"auto\" to fall back to the CPU engine.")));
	ereport(gpu_failure_logged ? DEBUG1 : LOG,
			(errmsg("setops: %s fell back to the CPU engine: %s", fname, errbuf)));
	gpu_failure_logged = true;
}

/* setops_last.reason of a count split over GPUs */
static char split_reason[160];

/*
 * What the service answered, into this backend's terms: timings, an order
 * break (ERROR), the output count.
 */
static void
gpu_answered(const char *fname, SetopsGpuSetopArgs *args, SetopsKeys *a, SetopsKeys *b,
			 size_t *packed_size, int64 *n)
{
	setops_last.on_gpu = true;
	setops_last.gpu = args->device;
	if (args->parts > 1 && setops_last.reason != split_reason)
	{
		/* (gpu is the first part's device) */
		snprintf(split_reason, sizeof(split_reason), "%s; split over %d GPUs, every one idle",
				 setops_last.reason ? setops_last.reason : "", args->parts);
		setops_last.reason = split_reason;
	}
	setops_last.queue_ms = args->ms_queue;
	setops_last.batched = args->batched;
	setops_last.upload_ms = args->ms_upload;
	setops_last.decode_ms += args->ms_decode;	/* CPU decoding may precede */
	/* encoding a packed result counts as kernel time */
	setops_last.kernel_ms = args->ms_kernel + args->ms_encode;
	setops_last.download_ms = args->ms_download;
	/* copying the result out of the service's arena builds the result */
	setops_last.result_ms = args->ms_copy_out;
	/* overlaps over an order break: the CPU answers (a key in both, or the
	 * error), so that every device gives the same */
	if (args->unsorted_arg != 0 && args->count_mode == SETOPS_GPU_COUNT_OVERLAPS)
	{
		*n = -1;
		return;
	}
	if (args->unsorted_arg != 0)
		setops_report_unsorted_found(fname, a, b, args->unsorted_arg == 1 ? a : b,
									 args->unsorted_pos);
	a->sorted_known = b->sorted_known = true;
	a->first_unsorted = b->first_unsorted = -1;
	*n = args->out_count;
	if (packed_size)
		*packed_size = args->out_packed_size;
}

/* A request for op, but for its inputs (setops_keys_for_gpu fills them). */
static void
request_fill(SetopsGpuSetopArgs *args, SetopsOp op, int count_mode, void *out_keys,
			 void *out_packed, size_t packed_cap)
{
	memset(args, 0, sizeof(*args));
	args->op = op;
	args->count_mode = count_mode;
	args->out_keys = out_keys;
	args->out_packed = out_packed;
	args->out_packed_cap = packed_cap;
}

/*
 * Does a request fit one slot of the service?  Only a request with a packed
 * input must: keys go in chunks.
 */
static bool
request_fits(const SetopsGpuSetopArgs *args)
{
	size_t		ks = setops_key_size(args->key_type);

	if (!args->a_packed && !args->b_packed)
		return true;
	return setops_service_fits((args->a_packed ? args->a_packed_size : args->na * ks) +
							   (args->b_packed ? args->b_packed_size : args->nb * ks) +
							   (setop_output_bound(args->op, args->na, args->nb) + 64) * ks +
							   4096);
}

/*
 * Stored arguments left unread go by their identity, answered from the
 * service's device cache.  What the cache misses is read and put into it,
 * then asked again; an array the cache cannot take goes with the request.
 * Returns 1 when answered, 0 when the caller must read everything and go
 * the ordinary way (a request too large for one slot), -1 when the CPU
 * must answer (auto, the GPU failed; or an order break).
 */
static int
gpu_setop_cached(const char *fname, SetopsOp op, int count_mode, SetopsKeys *a, SetopsKeys *b,
				 void *out_keys, void *out_packed, size_t packed_cap, size_t *packed_size,
				 int64 *n)
{
	SetopsKeys *arg[2] = {a, b};
	SetopsSendForm send[2];
	int			round,
				i;

	for (i = 0; i < 2; i++)
		send[i] = arg[i]->form == SETOPS_KEYS_STORED ? SETOPS_SEND_IDENTITY : SETOPS_SEND_HELD;
	for (round = 0; round < 3; round++)
	{
		SetopsGpuSetopArgs args;
		char		errbuf[SETOPS_GPU_ERRLEN];
		SetopsGpuStatus status;
		int			missing;

		request_fill(&args, op, count_mode, out_keys, out_packed, packed_cap);
		setops_keys_for_gpu(&args, a, send[0], b, send[1], fname);
		status = setops_service_setop_cached(&args,
											 send[0] == SETOPS_SEND_IDENTITY ? a->cache_key : NULL,
											 send[1] == SETOPS_SEND_IDENTITY ? b->cache_key : NULL,
											 round > 0, &missing, errbuf, sizeof(errbuf));
		if (status == SETOPS_GPU_TOO_LARGE)
			return 0;
		if (status != SETOPS_GPU_OK)
		{
			setops_gpu_failed(fname, status, errbuf);
			return -1;
		}
		if (missing == 0)
		{
			/* arrays answered from the cache were checked when put */
			for (i = 0; i < 2; i++)
				if (send[i] == SETOPS_SEND_IDENTITY)
				{
					arg[i]->sorted_known = true;
					arg[i]->first_unsorted = -1;
				}
			gpu_answered(fname, &args, a, b, packed_size, n);
			return *n < 0 ? -1 : 1;
		}

		/* read what is missing, and put it in the cache: it holds keys */
		for (i = 0; i < 2; i++)
		{
			SetopsKeys *k = arg[i];
			int64		pos;

			if (!(missing & (i == 0 ? CACHE_MISSING_A : CACHE_MISSING_B)))
				continue;
			setops_keys_make_plain(k, fname);
			status = setops_service_cache_put(k->cache_key, k->data, k->n, &pos,
											  errbuf, sizeof(errbuf));
			if (status == SETOPS_GPU_UNAVAILABLE || status == SETOPS_GPU_TOO_LARGE)
				send[i] = SETOPS_SEND_HELD; /* the cache cannot take it: sent with the request */
			else if (status != SETOPS_GPU_OK)
			{
				setops_gpu_failed(fname, status, errbuf);
				return -1;
			}
			else if (pos >= 0)
			{
				/* the CPU reports it, the other argument read first (overlaps:
				 * or answers past it, see gpu_answered) */
				k->sorted_known = true;
				k->first_unsorted = pos;
				return -1;
			}
		}
	}
	/* evicted as fast as put (a cache far too small): send everything */
	return 0;
}

/* Was k found out of order while it was read? */
static bool
found_unsorted(const SetopsKeys *k)
{
	return k->sorted_known && k->first_unsorted >= 0;
}

/*
 * On the GPU; false when the CPU must answer instead.  vals NULL for keys
 * only.  The device checks the order of the inputs while loading them.
 * With out_packed (keys only), the device packs the result into it
 * (packed_cap bytes) instead of filling out_keys, setting *packed_size.
 */
static bool
gpu_setop(const char *fname, SetopsOp op, int count_mode, SetopsKeys *a, const SetopsValues *av,
		  SetopsKeys *b, const SetopsValues *bv, void *out_keys, char *out_vals,
		  void *out_packed, size_t packed_cap, size_t *packed_size, int64 *n)
{
	SetopsGpuSetopArgs args;
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;

	/*
	 * An order break found while copying: the CPU reports it before any
	 * work, both arguments read first (overlaps: or answers past it, as for
	 * any break).  A stored argument is not read yet, so it could not be
	 * checked here.
	 */
	if (found_unsorted(a) || found_unsorted(b))
		return false;

	if (!av && (a->form == SETOPS_KEYS_STORED || b->form == SETOPS_KEYS_STORED))
	{
		int			done = gpu_setop_cached(fname, op, count_mode, a, b, out_keys, out_packed,
											packed_cap, packed_size, n);

		if (done != 0)
			return done > 0;
	}

	/*
	 * Packed arguments cross as they are and are decoded on the device; a
	 * pair too large for one slot of the service is decoded here instead,
	 * and goes in chunks.
	 */
	request_fill(&args, op, count_mode, out_keys, out_packed, packed_cap);
	setops_keys_for_gpu(&args, a, SETOPS_SEND_HELD, b, SETOPS_SEND_HELD, fname);
	if (!request_fits(&args))
		setops_keys_for_gpu(&args, a, SETOPS_SEND_KEYS, b, SETOPS_SEND_KEYS, fname);
	if (av)
	{
		args.a_vals = av->data;
		args.b_vals = bv->data;
		args.val_stride = av->stride;
		args.out_vals = out_vals;
	}
	status = setops_service_setop(&args, errbuf, sizeof(errbuf));
	if (status != SETOPS_GPU_OK)
	{
		setops_gpu_failed(fname, status, errbuf);
		return false;
	}
	gpu_answered(fname, &args, a, b, packed_size, n);
	return *n >= 0;
}


/*
 * Where a count or an operation on keys runs, decided once per call (a
 * plan the call carries; setops_last_timing() shows its reason).
 *
 * Under auto the plan follows what this backend measured: for each kind
 * of call (count, overlaps, contains, operation, packed operation, pairs,
 * sort; arguments stored or held) and size (the inputs' total, by powers
 * of two), the time from the decision to the answer on each engine, and
 * the CPU time this backend spent on it, moving averages.  The wall time
 * counts what the engine alone would not: the GPU service's queue and
 * transfers, arguments the device cache already holds, reading stored
 * arguments for the CPU, and a busy CPU.
 *
 * Which average decides depends on the machine's CPUs (route_cpus_busy):
 *   - with idle CPUs, the wall time: a call goes where it is answered
 *     sooner, so that while the GPU's queue is short calls go there, and
 *     as it grows the CPU engine takes the calls it answers sooner (both
 *     engines at work);
 *   - with every CPU busy (as many tasks runnable as three quarters of
 *     the CPUs), the CPU time: each CPU millisecond one call takes is one
 *     the other sessions lose.  A call waiting for the GPU takes little
 *     of its backend's, but the service's threads work for it too: their
 *     CPU time a request (setops_service_stats().request_cpu_ms) is added
 *     to the GPU's.  The service's polling is left out, a fixed cost while
 *     it has work: counted per request it would grow as auto sent fewer
 *     calls to the GPU, and lock auto onto the CPU engine (one H200, 16
 *     CPUs, 20k-key predicates at 16 clients: polling included, the
 *     service took 58 us a request, its work alone 33 us; auto sent 90% of
 *     calls to the GPU on its backend's time alone, at 0.56x the CPU
 *     engine's rate).
 * Until both averages are known, the rule of setops.gpu_min_elements
 * decides, and near its threshold (within 8 times) the other engine is
 * tried once the rule's is known (and now and then after a try broken
 * off); once both are known, the costlier one is still tried at times,
 * rarely enough that trying costs under 2% of what decides (the time, or
 * with every CPU busy the CPU time).
 *
 * A try is a run of ROUTE_TRY_CALLS calls of the bucket, the first not
 * counted (nor in the 2%: a warm-up's time is not known), broken off where
 * the mode changes or the GPU fails.  A lone call sent to a GPU service
 * that has been idle finds its threads asleep and its GPU idle, and
 * learnt from such calls the GPU looked five times slower than it answers
 * calls that follow each other (one H200, 20k-key counts, one session:
 * tries 0.25 ms, calls in gpu mode 0.045 ms, so auto stayed on the CPU
 * engine at 0.66x gpu's rate).
 *
 * A time over ROUTE_OUTLIER times its average counts as that much: one
 * call held up (its backend descheduled, a checkpoint, the service's
 * threads asleep) moved a mean by far more than the engine's speed did,
 * and the engine it made look slow was then tried only now and then (one
 * H200, 20k-key counts, one session: 15% of auto's calls on the CPU
 * engine at 2.6 times the GPU's time).
 */
#define ROUTE_BUCKETS 40
#define ROUTE_MIN_ELEMENTS 4096		/* fewer: never worth a trip to the GPU */
#define ROUTE_ALPHA 0.2				/* weight of a new measurement */
#define ROUTE_KNOWN 3				/* calls before an average decides (the first not counted) */
#define ROUTE_LOAD_MS 100			/* how often the CPUs' load is sampled */
#define ROUTE_TRY_CALLS 4			/* a try's calls on the other engine, the first not counted */
#define ROUTE_OUTLIER 4.0			/* a time over this many averages counts as this many */

/* (counts and predicates apart: an overlap often stops at its first keys) */
typedef enum RouteKind
{
	ROUTE_COUNT,
	ROUTE_OVERLAPS,
	ROUTE_CONTAINS,
	ROUTE_SETOP,
	ROUTE_SETOP_PACKED,			/* a packed result */
	ROUTE_PAIRS,
	ROUTE_SORT,
	ROUTE_KINDS
} RouteKind;

static const char *const route_kind_names[ROUTE_KINDS] = {
	"count", "overlaps", "contains", "operation", "operation, packed", "pairs", "sort"
};

typedef struct RouteAverage
{
	double		ms;				/* decision to answer */
	double		cpu_ms;			/* this backend's CPU time in it */
	int			n;
} RouteAverage;

/* [kind][stored][bucket][gpu] */
static RouteAverage route_avg[ROUTE_KINDS][2][ROUTE_BUCKETS][2];

/* A try in progress: calls of the bucket left to it, and its engine. */
typedef struct RouteTry
{
	int			left;
	bool		gpu;
} RouteTry;

static RouteTry route_try[ROUTE_KINDS][2][ROUTE_BUCKETS];

typedef struct RoutePlan
{
	bool		gpu;
	bool		learn;			/* auto: the time goes into the averages */
	bool		warm_up;		/* a try's first call: not counted */
	RouteTry   *try;			/* this call's bucket's try */
	RouteAverage *avg;			/* this call's pair of averages */
	double		t0;
	double		cpu0;
} RoutePlan;

static bool
route_chance(double p)
{
	return pg_prng_double(&pg_global_prng_state) < p;
}

/* This backend's CPU time, milliseconds (its threads' too: the CPU engine's). */
static double
route_cpu_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/*
 * Whether the machine's CPUs are all busy: the tasks runnable now (the
 * fourth field of /proc/loadavg, this backend included) against three
 * quarters of the CPUs online, sampled at most every ROUTE_LOAD_MS and
 * smoothed over samples (a reading is a moment).  Three quarters: with
 * the CPUs 90% busy, the CPU engine still answered a call sooner than
 * the GPU's queue did, but each such call's CPU time was taken from the
 * calls waiting on the GPU (one H200, 16 CPUs, 20k-key counts at 64
 * clients: 8% of calls on the CPU engine, 0.77x gpu mode's rate).
 * /proc/loadavg costs a few microseconds, unlike /proc/stat, whose
 * per-interrupt counters cost milliseconds on large hosts.  False where
 * it cannot be read.
 */
static bool
route_cpus_busy(double now)
{
	static double sampled_at = -1e9;
	static double busy_share = 0;
	static long ncpus = 0;
	double		l1, l5, l15;
	int			running = 0,
				tasks = 0;
	FILE	   *f;

	if (now - sampled_at < ROUTE_LOAD_MS)
		return busy_share >= 0.5;
	sampled_at = now;
	if (ncpus == 0)
		ncpus = Max(sysconf(_SC_NPROCESSORS_ONLN), 1);
	f = fopen("/proc/loadavg", "r");
	if (f == NULL)
		return false;
	if (fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &tasks) == 5)
		busy_share += 0.3 * ((running >= ncpus - ncpus / 4 ? 1.0 : 0.0) - busy_share);
	fclose(f);
	return busy_share >= 0.5;
}

/* This call is one of a try of the engine gpu. */
static void
route_trying(RoutePlan *plan, bool gpu)
{
	plan->gpu = gpu;
	setops_last.reason = gpu ? "auto: trying the GPU" : "auto: trying the CPU";
}

/* A try of the engine gpu starts with this call (a warm-up, not counted). */
static void
route_try_start(RoutePlan *plan, RouteTry *try, bool gpu)
{
	route_trying(plan, try->gpu = gpu);
	plan->warm_up = true;
	try->left = ROUTE_TRY_CALLS - 1;
}

/*
 * The plan for a call of kind on n input elements, stored ones among them
 * or not (ERRORs in gpu mode without a GPU).
 */
static void
route_plan_n(RoutePlan *plan, const char *fname, RouteKind kind, int64 n, bool stored)
{
	int			bucket = Min(n > 0 ? pg_leftmost_one_pos64((uint64) n) : 0, ROUTE_BUCKETS - 1);
	RouteAverage *avg = route_avg[kind][stored][bucket];
	RouteTry   *try = &route_try[kind][stored][bucket];
	bool		rule = n >= setops_gpu_min_elements;
	char		errbuf[SETOPS_GPU_ERRLEN];

	memset(plan, 0, sizeof(*plan));
	plan->t0 = setops_now_ms();
	plan->avg = avg;
	plan->try = try;
	if (setops_device != SETOPS_DEVICE_AUTO)
	{
		/* (which sets the reason) */
		plan->gpu = setops_gpu_usable(fname, n);
		try->left = 0;			/* (a try broken off starts again, warmed up) */
		return;
	}
	if (n < ROUTE_MIN_ELEMENTS)
	{
		setops_last.reason = "auto: too small for a trip to the GPU";
		return;
	}
	if (setops_service_device_count(errbuf, sizeof(errbuf)) == 0)
	{
		setops_last.reason = "auto: no GPU";
		try->left = 0;
		return;
	}
	plan->learn = true;
	plan->cpu0 = route_cpu_ms();
	if (try->left > 0)
	{
		try->left--;
		route_trying(plan, try->gpu);
		return;
	}
	if (avg[0].n >= ROUTE_KNOWN && avg[1].n >= ROUTE_KNOWN)
	{
		bool		busy = route_cpus_busy(plan->t0);
		double		cost_cpu = busy ? avg[0].cpu_ms : avg[0].ms,
					cost_gpu = busy ? avg[1].cpu_ms + setops_service_request_cpu_ms() : avg[1].ms;
		bool		faster = cost_gpu < cost_cpu;
		double		best = Min(cost_cpu, cost_gpu),
					other = Max(cost_cpu, cost_gpu);

		/* the other engine now and then, at under 2% of the cost deciding */
		if (route_chance(Min(1.0 / 32, 0.02 * best / Max(other - best, 1e-6)) / ROUTE_TRY_CALLS))
			route_try_start(plan, try, !faster);
		else if (busy)
			setops_last.reason = (plan->gpu = faster) ?
				"auto: the CPUs are busy and the GPU costs them less" :
				"auto: the CPUs are busy and the CPU engine costs them less";
		else
			setops_last.reason = (plan->gpu = faster) ?
				"auto: the GPU answered such calls sooner" :
				"auto: the CPU answered such calls sooner";
		return;
	}
	plan->gpu = rule;
	setops_last.reason = rule ? "auto: at least setops.gpu_min_elements elements" :
		"auto: fewer than setops.gpu_min_elements elements";

	/*
	 * Near the threshold, learn the other engine too: first as soon as the
	 * rule's engine is known (each new session paid up to a hundred calls
	 * on the slower engine before: 64 sessions, 20k-key counts, 2% of a
	 * 3-second run), then, a try broken off, now and then.
	 */
	if (avg[!rule].n < ROUTE_KNOWN && n * 8 >= setops_gpu_min_elements &&
		n <= (int64) setops_gpu_min_elements * 8 &&
		((avg[!rule].n == 0 && avg[rule].n >= ROUTE_KNOWN) ||
		 route_chance(1.0 / 16 / ROUTE_TRY_CALLS)))
		route_try_start(plan, try, !rule);
}

/* The plan for a call of kind on a and b. */
static void
route_plan(RoutePlan *plan, const char *fname, RouteKind kind, const SetopsKeys *a,
		   const SetopsKeys *b)
{
	route_plan_n(plan, fname, kind, a->n + b->n,
				 a->form == SETOPS_KEYS_STORED || b->form == SETOPS_KEYS_STORED);
}

/* The call was answered by the engine planned (on_gpu): learn its times. */
static void
route_done(RoutePlan *plan, bool on_gpu)
{
	RouteAverage *avg;
	double		ms,
				cpu_ms;

	if (!plan->learn)
		return;
	avg = &plan->avg[plan->gpu];
	/*
	 * A try's warm-up, answered or failed, stands for its engine's first
	 * call (also a warm-up), so that the engine is not tried again at once.
	 */
	if (plan->warm_up && avg->n == 0)
		avg->n = 1;
	if (on_gpu != plan->gpu)
	{
		/* a GPU failure answered by the CPU: not this plan's time, nor its try's */
		plan->try->left = 0;
		return;
	}
	if (plan->warm_up)
		return;
	ms = setops_now_ms() - plan->t0;
	cpu_ms = route_cpu_ms() - plan->cpu0;
	/* the first call warms up (the device cache, the pools): not counted */
	if (avg->n == 1)
	{
		avg->ms = ms;
		avg->cpu_ms = cpu_ms;
	}
	else if (avg->n > 1)
	{
		/* (the floor: an average of 0 would count every later time as 0) */
		avg->ms += ROUTE_ALPHA * (Min(ms, ROUTE_OUTLIER * Max(avg->ms, 0.001)) - avg->ms);
		avg->cpu_ms += ROUTE_ALPHA * (Min(cpu_ms, ROUTE_OUTLIER * Max(avg->cpu_ms, 0.001)) -
									  avg->cpu_ms);
	}
	if (avg->n < PG_INT32_MAX)	/* (a pooled backend lives long) */
		avg->n++;
}

/*
 * What auto learnt in this backend (setops_auto_estimates()): a row per
 * kind, stored or not, size and engine with an average, palloc'd; *n rows.
 */
SetopsRouteEstimate *
setops_route_estimates(int *n)
{
	SetopsRouteEstimate *rows = palloc(sizeof(SetopsRouteEstimate) *
									   ROUTE_KINDS * 2 * ROUTE_BUCKETS * 2);

	*n = 0;
	for (int kind = 0; kind < ROUTE_KINDS; kind++)
		for (int stored = 0; stored < 2; stored++)
			for (int bucket = 0; bucket < ROUTE_BUCKETS; bucket++)
				for (int gpu = 0; gpu < 2; gpu++)
				{
					const RouteAverage *avg = &route_avg[kind][stored][bucket][gpu];
					SetopsRouteEstimate *row = &rows[*n];

					/* (n counts the warm-up, which has no time) */
					if (avg->n < 2)
						continue;
					row->kind = route_kind_names[kind];
					row->stored = stored;
					row->min_elements = bucket == 0 ? 0 : (int64) 1 << bucket;
					row->gpu = gpu;
					row->calls = avg->n - 1;
					row->ms = avg->ms;
					row->cpu_ms = avg->cpu_ms;
					(*n)++;
				}
	return rows;
}

/* The CPU engine's answer. */
static int64
cpu_setop(const char *fname, SetopsOp op, SetopsKeys *a, SetopsKeys *b, void *out_keys)
{
	int64		n;
	double		t0;

	setops_keys_for_cpu(a, b, fname);
	t0 = setops_now_ms();
	setops_require_sorted2(fname, a, b);
	n = setops_cpu_setop(op, a->type, a->data, a->n, b->data, b->n, out_keys, NULL);
	setops_last.cpu_ms = setops_now_ms() - t0;
	return n;
}

int64
setops_run_setop(const char *fname, SetopsOp op, SetopsKeys *a, SetopsKeys *b,
				 void *out_keys)
{
	int64		n;
	RoutePlan	plan;

	Assert(a->type == b->type);
	route_plan(&plan, fname, ROUTE_SETOP, a, b);
	if (plan.gpu &&
		gpu_setop(fname, op, SETOPS_GPU_COUNT_NONE, a, NULL, b, NULL, out_keys, NULL, NULL, 0,
				  NULL, &n))
	{
		route_done(&plan, true);
		return n;
	}
	n = cpu_setop(fname, op, a, b, out_keys);
	route_done(&plan, false);
	return n;
}

/* Elements from which a CPU count is split over setops.cpu_threads threads */
#define CPU_COUNT_PARALLEL_MIN ((int64) 4 << 20)
/* Chunks a count thread takes, one at a time: a thread on a busy core then
 * takes fewer instead of holding up the rest with a fixed share */
#define CPU_COUNT_CHUNKS_PER_THREAD 4
#define CPU_COUNT_CHUNKS_MAX (SETOPS_COPY_THREADS_MAX * CPU_COUNT_CHUNKS_PER_THREAD)

typedef struct CountChunks
{
	SetopsKeyType type;
	const void *a;
	const void *b;
	int64		a_cut[CPU_COUNT_CHUNKS_MAX + 1];
	int64		b_cut[CPU_COUNT_CHUNKS_MAX + 1];
	int64		k[CPU_COUNT_CHUNKS_MAX];
} CountChunks;

/* One chunk, on a helper thread: engine code only (copy_threads.h) */
static void
count_chunk(void *arg, int chunk)
{
	CountChunks *c = (CountChunks *) arg;

	c->k[chunk] = setops_cpu_count_part(c->type, c->a, c->b, c->a_cut, c->b_cut, chunk);
}

/*
 * Threads the intersection count would split over: setops.cpu_threads
 * when the inputs are large enough and their keys take the SIMD windows,
 * else 1.
 */
static int
count_threads(SetopsKeys *a, SetopsKeys *b)
{
	int			threads;

	if (a->n + b->n < CPU_COUNT_PARALLEL_MIN)
		return 1;
	threads = Min(setops_count_threads(), SETOPS_COPY_THREADS_MAX);
	if (threads < 2 ||
		setops_cpu_count_split(a->type, a->data, a->n, b->data, b->n, threads, NULL, NULL) == 0)
		return 1;
	return threads;
}

/*
 * The intersection count, over setops.cpu_threads threads when the inputs
 * are large and take the SIMD windows: one pass over memory at a core's
 * bandwidth is the single-threaded count's floor.  -1 at an order break.
 * No interrupt check while the chunks run (each is a small share).
 */
static int64
cpu_intersect_count(SetopsKeys *a, SetopsKeys *b)
{
	int			threads = count_threads(a, b);
	void	   *scratch;
	int64		r;

	if (threads > 1)
	{
		CountChunks c;
		int			chunks = threads * CPU_COUNT_CHUNKS_PER_THREAD,
					i;

		c.type = a->type;
		c.a = a->data;
		c.b = b->data;
		if (setops_cpu_count_split(a->type, a->data, a->n, b->data, b->n, chunks, c.a_cut,
								   c.b_cut) < 0)
			return -1;
		setops_run_chunks(count_chunk, &c, chunks, threads);
		r = 0;
		for (i = 0; i < chunks; i++)
		{
			if (c.k[i] < 0)
				return -1;
			r += c.k[i];
		}
		return r;
	}
	scratch = palloc(SETOPS_CPU_COUNT_SCRATCH * setops_key_size(a->type));
	r = setops_cpu_intersect_count(a->type, a->data, a->n, b->data, b->n, scratch);
	pfree(scratch);
	return r;
}

/*
 * auto: whether the CPU engine counts arrays held in this backend faster
 * than the GPU could.  The count reads its inputs once; the GPU service
 * must first copy them through host memory twice (into its shared memory,
 * then across PCIe) for an answer of 8 bytes, so from AUTO_CPU_COUNT_THREADS
 * threads on, where the count splits over them, the CPU is the faster
 * (H100 host, 16M + 16M int4: 8.5 ms on 4 threads, 4.8 on 16, 11.4 through
 * the GPU, 26.9 on one thread: docs/performance.md).  Stored arrays stay
 * with the device cache, packed ones cross compressed.
 */
#define AUTO_CPU_COUNT_THREADS 4

static bool
count_on_cpu_first(SetopsCountKind kind, SetopsKeys *a, SetopsKeys *b)
{
	return kind == SETOPS_COUNT_INTERSECT && setops_device == SETOPS_DEVICE_AUTO &&
		a->form == SETOPS_KEYS_PLAIN && b->form == SETOPS_KEYS_PLAIN &&
		count_threads(a, b) >= AUTO_CPU_COUNT_THREADS;
}

/*
 * Counts and predicates on the CPU engine.  Contains needs both inputs in
 * order first, the count checks as it goes; overlaps answers "yes" as soon
 * as a key is found in both (true in any order: the key is in both), and
 * checks the order only before it answers "no".
 */
static int64
cpu_count(const char *fname, SetopsCountKind kind, SetopsKeys *a, SetopsKeys *b)
{
	int64		r;
	double		t0;

	setops_keys_for_cpu(a, b, fname);
	t0 = setops_now_ms();
	switch (kind)
	{
		case SETOPS_COUNT_OVERLAPS:
			/* even where reading saw an order break: the same answer whatever
			 * form the arguments came in */
			r = setops_cpu_overlaps(a->type, a->data, a->n, b->data, b->n);
			if (!r)
				setops_require_sorted2(fname, a, b);
			break;
		case SETOPS_COUNT_CONTAINS:
			setops_require_sorted2(fname, a, b);
			r = setops_cpu_contains(a->type, a->data, a->n, b->data, b->n);
			break;
		default:
			/* the count checks the order as it reads (-1 at a break): the
			 * message's position comes from the plain check */
			r = cpu_intersect_count(a, b);
			CHECK_FOR_INTERRUPTS();
			if (r < 0)
			{
				setops_require_sorted2(fname, a, b);
				elog(ERROR, "%s: the CPU engine saw an order break that the order check did not find",
					 fname);
			}
			break;
	}
	setops_last.cpu_ms = setops_now_ms() - t0;
	return r;
}

/* Leapfrog steps overlaps tries on the CPU before the GPU (well under a
 * microsecond) */
#define OVERLAPS_PROBE_STEPS 64

int64
setops_run_count(const char *fname, SetopsCountKind kind, SetopsKeys *a, SetopsKeys *b)
{
	RoutePlan	plan;
	int64		r;

	Assert(a->type == b->type);
	/* a multiset larger than a's cannot lie within it: no need to read */
	if (kind == SETOPS_COUNT_CONTAINS && b->n > a->n)
	{
		setops_keys_for_cpu(a, b, fname);
		setops_require_sorted2(fname, a, b);
		setops_last.reason = "a multiset larger than the other cannot lie within it";
		return 0;
	}
	/*
	 * auto: a key in both found within a few leapfrog steps answers before
	 * the GPU is asked, which would first copy both arguments whole (keys
	 * at hand only: stored ones are left for the device cache)
	 */
	if (kind == SETOPS_COUNT_OVERLAPS && setops_device == SETOPS_DEVICE_AUTO &&
		a->form == SETOPS_KEYS_PLAIN && b->form == SETOPS_KEYS_PLAIN &&
		setops_cpu_overlaps_within(a->type, a->data, a->n, b->data, b->n,
								   OVERLAPS_PROBE_STEPS) == 1)
	{
		setops_last.reason = "auto: a key in both, found within a few steps";
		return 1;
	}
	if (count_on_cpu_first(kind, a, b))
	{
		setops_last.reason = "auto: arrays at hand, counted on setops.cpu_threads threads";
		return cpu_count(fname, kind, a, b);
	}
	route_plan(&plan, fname, kind == SETOPS_COUNT_OVERLAPS ? ROUTE_OVERLAPS :
			   kind == SETOPS_COUNT_CONTAINS ? ROUTE_CONTAINS : ROUTE_COUNT, a, b);
	if (plan.gpu)
	{
		int64		n;

		if (gpu_setop(fname, SETOPS_OP_INTERSECT,
					  kind == SETOPS_COUNT_OVERLAPS ? SETOPS_GPU_COUNT_OVERLAPS :
					  kind == SETOPS_COUNT_CONTAINS ? SETOPS_GPU_COUNT_CONTAINS :
					  SETOPS_GPU_COUNT_INTERSECT, a, NULL, b, NULL, NULL, NULL, NULL, 0,
					  NULL, &n))
		{
			route_done(&plan, true);
			/* contains: the parts where b has a key a lacks, none or some */
			return kind == SETOPS_COUNT_CONTAINS ? (n == 0) : n;
		}
	}
	r = cpu_count(fname, kind, a, b);
	route_done(&plan, false);
	return r;
}

/*
 * setops_run_setop for a result returned packed.  When the GPU runs an
 * operation on two packed arguments (one piece on the device: no chunks),
 * it packs the result too and only the packed bytes come back: *packed
 * gets them (palloc'd, *packed_size bytes, the varlena length still to be
 * set).  Otherwise *packed is NULL and out_keys holds the keys, as from
 * setops_run_setop.
 */
int64
setops_run_setop_packed(const char *fname, SetopsOp op, SetopsKeys *a, SetopsKeys *b,
						void *out_keys, void **packed, size_t *packed_size)
{
	int64		n;

	RoutePlan	plan;

	Assert(a->type == b->type);
	*packed = NULL;
	*packed_size = 0;
	if (!(setops_keys_packed_undecoded(a) && setops_keys_packed_undecoded(b)))
		return setops_run_setop(fname, op, a, b, out_keys);
	route_plan(&plan, fname, ROUTE_SETOP_PACKED, a, b);
	if (plan.gpu)
	{
		/* at the bound, but only the pages the result takes are touched */
		size_t		cap = setops_packed_bound((int) setops_key_size(a->type),
											  setop_output_bound(op, a->n, b->n));
		void	   *v = palloc_extended(cap, MCXT_ALLOC_HUGE);

		if (gpu_setop(fname, op, SETOPS_GPU_COUNT_NONE, a, NULL, b, NULL, out_keys, NULL, v, cap,
					  packed_size, &n))
		{
			/* the service may answer with keys (a result too large for a slot) */
			if (*packed_size > 0)
				*packed = v;
			else
				pfree(v);
			route_done(&plan, true);
			return n;
		}
		pfree(v);
	}
	n = cpu_setop(fname, op, a, b, out_keys);
	route_done(&plan, false);
	return n;
}

int64
setops_run_sort(const char *fname, SetopsKeyType type, void *keys, int64 n,
				bool distinct)
{
	RoutePlan	plan;

	route_plan_n(&plan, fname, ROUTE_SORT, n, false);
	if (n < 2)
		return n;
	if (plan.gpu)
	{
		char		errbuf[SETOPS_GPU_ERRLEN];
		int64		m = n;
		SetopsGpuStatus status = setops_service_sort(type, keys, &m, distinct,
													 errbuf, sizeof(errbuf));

		if (status == SETOPS_GPU_OK)
		{
			route_done(&plan, true);
			return m;
		}
		setops_gpu_failed(fname, status, errbuf);
	}
	n = setops_sort_on_cpu(type, keys, n, distinct);
	route_done(&plan, false);
	return n;
}

int64
setops_identity_min_keys(void)
{
	if (setops_device == SETOPS_DEVICE_CPU || !setops_service_caches())
		return -1;
	/*
	 * in auto, arrays too small for any trip to the GPU are not worth the
	 * probe; larger ones stay unread, for the router to send either way
	 */
	return setops_device == SETOPS_DEVICE_AUTO ? ROUTE_MIN_ELEMENTS / 2 : 0;
}

/* The CPU engine's sort (distinct: and unique) in place; the kept count. */
int64
setops_sort_on_cpu(SetopsKeyType type, void *keys, int64 n, bool distinct)
{
	void	   *tmp;

	if (n < 2)
		return n;
	tmp = palloc_extended(n * setops_key_size(type), MCXT_ALLOC_HUGE);
	n = setops_cpu_sort(type, keys, n, distinct, tmp);
	pfree(tmp);
	return n;
}

/*
 * Pairs: keys and their values.  The GPU gathers values on the device.
 * The CPU engine reports each output's source position and the values are
 * gathered by position, one chunk of the inputs at a time (chunks end on
 * key-rank-consistent splits), so the position buffer stays small however
 * large the inputs.
 */
#define PAIRS_CHUNK ((int64) 1 << 20)

int64
setops_run_setop_pairs(const char *fname, SetopsOp op,
					   SetopsKeys *a, const SetopsValues *av,
					   SetopsKeys *b, const SetopsValues *bv,
					   void *out_keys, char *out_vals)
{
	size_t		ks = setops_key_size(a->type);
	int64	   *pos;
	int64		k = 0;
	SetopsChunks c;
	RoutePlan	plan;

	route_plan(&plan, fname, ROUTE_PAIRS, a, b);
	if (plan.gpu &&
		gpu_setop(fname, op, SETOPS_GPU_COUNT_NONE, a, av, b, bv, out_keys, out_vals, NULL, 0,
				  NULL, &k))
	{
		route_done(&plan, true);
		return k;
	}

	/* a chunk holds at most PAIRS_CHUNK + 1 inputs (starred diagonals) */
	pos = palloc((Min(a->n + b->n, PAIRS_CHUNK + 1) + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int64));

	setops_require_sorted2(fname, a, b);
	setops_chunks_begin(&c, op, a->type, a->data, a->n, b->data, b->n, PAIRS_CHUNK);
	while (setops_chunks_next(&c))
	{
		int64		m;
		SetopsValues avc = *av,
					bvc = *bv;

		m = setops_cpu_setop(op, a->type, (const char *) a->data + c.ai * ks, c.a_end - c.ai,
							 (const char *) b->data + c.bi * ks, c.b_end - c.bi,
							 (char *) out_keys + k * ks, pos);

		/* this chunk's values: positions are relative to the chunk */
		avc.data = av->data + c.ai * av->stride;
		avc.n = c.a_end - c.ai;
		bvc.data = bv->data + c.bi * bv->stride;
		setops_gather_values(out_vals + k * av->stride, pos, m, &avc, &bvc);
		k += m;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(pos);
	route_done(&plan, false);
	return k;
}
