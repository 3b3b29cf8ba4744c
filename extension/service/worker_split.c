/*
 * worker_split.c
 *	  A count of two large cached arrays cut into parts, one on each device
 *	  at once, the parts' answers added up (engine/common/count_split.h).
 *
 * One large count on one device leaves the others idle, and its latency is
 * mostly the kernel's reading of both arrays.  So a count that finds every
 * device idle is cut where its larger array's split points allow (taken
 * when the array was cached), a part a device.  Under load the devices
 * serve independent requests instead, and nothing is cut.  The arrays go
 * to each device that lacks them once, where they fit without evicting
 * (service_cache_can_gather); the copies stay in the cache.
 *
 * Each part is a job on its device's queue, as any count of cached arrays
 * (its count runners or executors).  The last part to finish answers the
 * slot for all of them (service_split_part_done, from whichever thread
 * runs it: atomics only), and the main thread reaps them together.
 *
 * Every count mode splits through the key-rank intersection count:
 * intersection counts add up; overlaps is whether any part overlaps; and
 * containment (b within a) is whether the intersection count is all of b,
 * since a part's bracket of b may hold keys its part of a lacks.
 */
#include "postgres.h"

#include "port/atomics.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/worker.h"
#include "service/device_ops.h"

typedef struct ServiceSplit
{
	pg_atomic_uint32 left;		/* parts not answered yet */
	int			nparts;
	bool		swapped;		/* the parts' a is the request's b */
	SetopsGpuSetopArgs whole;	/* the request, bound to its slot */
	SetopsCountPart cuts[SERVICE_MAX_DEVICES];
	ServiceJob *parts[SERVICE_MAX_DEVICES];
	char		errmsg[SERVICE_MAX_DEVICES][SETOPS_GPU_ERRLEN];
} ServiceSplit;

/* one a slot (a slot has one request at a time), made at the first split */
static ServiceSplit *splits = NULL;

/* The parts of a split that never ran (NULL: not made): released. */
static void
drop_parts(ServiceSplit *s, int n)
{
	int			k;

	for (k = 0; k < n; k++)
		if (s->parts[k] != NULL)
			service_exec_drop(s->parts[k]);
}

/*
 * Part k's job (made) given its keys of both arrays on its device k, held
 * there (copied there if need be): false with errbuf set when a hold
 * failed (what it held is released with the job).
 */
static bool
hold_part(ServiceSplit *s, int k, const ServiceCacheRef *a, const ServiceCacheRef *b,
		  char *errbuf, size_t errlen)
{
	ServiceJob *job = s->parts[k];
	const ServiceCacheRef *first = s->swapped ? b : a,
			   *second = s->swapped ? a : b;
	const void *keys[2] = {NULL, NULL};
	size_t		ks = setops_key_size(s->whole.key_type);

	service_exec_bind(job, k);
	job->split = s;
	job->part = k;
	if (service_cache_hold_pair(first, second, k, job->holds, &keys[0], &keys[1],
								errbuf, errlen) != SETOPS_GPU_OK)
		return false;
	job->args = s->whole;
	setops_gpu_answer_reset(&job->args);
	job->args.a = job->args.b = NULL;
	job->args.a_dev = (const char *) keys[0] + s->cuts[k].a_off * ks;
	job->args.na = s->cuts[k].na;
	job->args.b_dev = (const char *) keys[1] + s->cuts[k].b_off * ks;
	job->args.nb = s->cuts[k].nb;
	if (s->whole.count_mode == SETOPS_GPU_COUNT_CONTAINS)
		job->args.count_mode = SETOPS_GPU_COUNT_INTERSECT;
	return true;
}

/*
 * A count of the cached arrays a and b (args, bound to slot_index's slot)
 * split over every device, when it is worth it: true when the parts went
 * to their devices; false when it goes to one device as usual
 * (a copy between devices that failed included: that device may copy again).
 */
bool
service_split_count(int slot_index, const SetopsGpuSetopArgs *args, const ServiceCacheRef *a,
					const ServiceCacheRef *b, char *errbuf, size_t errlen)
{
	int			ndev = setops_service->ndevices,
				nparts = Min(ndev, SETOPS_SPLIT_MAX_PARTS),
				planned = 0,
				k;
	SetopsSplitPoints pa,
				pb;
	ServiceSplit *s;
	volatile bool held = true;

	if (ndev < 2 || setops_service->streams == 0 || !args->inputs_sorted ||
		args->count_mode < SETOPS_GPU_COUNT_INTERSECT || args->count_mode > SETOPS_GPU_COUNT_CONTAINS ||
		setops_service_split_min_elements <= 0 ||
		args->na + args->nb < setops_service_split_min_elements || args->na + args->nb > INT_MAX)
		return false;
	for (k = 0; k < ndev; k++)
		if (service_exec_load(k) > 0)
			return false;
	for (k = 0; k < nparts; k++)
		if (!(service_cache_on(a, k) && service_cache_on(b, k)) &&
			!service_cache_can_gather(a, b, k))
			return false;

	if (splits == NULL)
		splits = MemoryContextAllocZero(TopMemoryContext,
										sizeof(ServiceSplit) * setops_service->nslots);
	s = &splits[slot_index];
	/* A cut at the larger array's points, else at the other's (none: one bracket, all of it) */
	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	(void) service_cache_splits(a, &pa);
	(void) service_cache_splits(b, &pb);
	for (k = 0; k < 2 && planned == 0; k++)
	{
		s->swapped = (b->n > a->n) != (k == 1);
		planned = setops_count_split_plan(s->swapped ? &pb : &pa, s->swapped ? b->n : a->n,
										  s->swapped ? &pa : &pb, s->swapped ? a->n : b->n,
										  nparts, s->cuts);
	}
	if (planned == 0)
		return false;
	s->nparts = nparts;
	s->whole = *args;
	memset(s->parts, 0, sizeof(s->parts));
	/* (an ERROR, out of memory or a copy between devices stopped, drops the parts and their holds) */
	PG_TRY();
	{
		for (k = 0; k < nparts; k++)
			s->parts[k] = service_exec_job(slot_index);
		for (k = 0; k < nparts && held; k++)
			held = hold_part(s, k, a, b, errbuf, errlen);
	}
	PG_CATCH();
	{
		drop_parts(s, nparts);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (!held)
	{
		/* (a copy that failed: the count goes to one device, which may copy again) */
		drop_parts(s, nparts);
		errbuf[0] = '\0';
		return false;
	}
	pg_atomic_init_u32(&s->left, nparts);
	for (k = 0; k < nparts; k++)
		service_exec_submit(s->parts[k]);
	return true;
}

/*
 * Part job answered (its status in job->status, its message in errbuf),
 * on its thread: false while other parts run (the job waits for them,
 * unreaped); for the last, true with every part in parts[] (room for
 * SERVICE_MAX_DEVICES) and the request's answer in *whole, *status and
 * *errmsg (valid until the slot is answered).
 */
bool
service_split_part_done(ServiceJob *job, const char *errbuf, ServiceJob **parts, int *nparts,
						SetopsGpuSetopArgs *whole, SetopsGpuStatus *status, const char **errmsg)
{
	ServiceSplit *s = job->split;
	int64_t		matched = 0;
	bool		overlap = false;
	int			k;

	strlcpy(s->errmsg[job->part], errbuf, SETOPS_GPU_ERRLEN);
	if (pg_atomic_sub_fetch_u32(&s->left, 1) > 0)
		return false;

	*whole = s->whole;
	setops_gpu_answer_reset(whole);
	*status = SETOPS_GPU_OK;
	*errmsg = "";
	for (k = 0; k < s->nparts; k++)
	{
		const SetopsGpuSetopArgs *p = &s->parts[k]->args;

		if (s->parts[k]->status != SETOPS_GPU_OK && *status == SETOPS_GPU_OK)
		{
			*status = s->parts[k]->status;
			*errmsg = s->errmsg[k];
		}
		matched += p->out_count;
		overlap |= p->out_count > 0;
		/* (never for arrays checked when cached; where it is, as one device says it) */
		if (p->unsorted_arg != 0 && whole->unsorted_arg == 0)
		{
			bool		of_a = (p->unsorted_arg == 1) != s->swapped;

			whole->unsorted_arg = of_a ? 1 : 2;
			whole->unsorted_pos = p->unsorted_pos < 0 ? -1 : p->unsorted_pos +
				(p->unsorted_arg == 1 ? s->cuts[k].a_off : s->cuts[k].b_off);
		}
		/* the parts ran at once: the slowest one's times */
		whole->ms_kernel = Max(whole->ms_kernel, p->ms_kernel);
		whole->ms_queue = Max(whole->ms_queue, p->ms_queue);
		whole->batched = Max(whole->batched, p->batched);
	}
	if (s->whole.count_mode == SETOPS_GPU_COUNT_INTERSECT)
		whole->out_count = matched;
	else if (s->whole.count_mode == SETOPS_GPU_COUNT_OVERLAPS)
		whole->out_count = overlap ? 1 : 0;
	else
		whole->out_count = s->whole.nb - matched;	/* 0: all of b within a */
	whole->device = s->parts[0]->device;
	whole->parts = s->nparts;
	/*
	 * (copies: once the slot is answered, its next request may be split
	 * too, reusing s)
	 */
	memcpy(parts, s->parts, sizeof(ServiceJob *) * s->nparts);
	*nparts = s->nparts;
	return true;
}
