/*
 * multi_device.cu
 *	  One operation over several GPUs: the inputs split by Balanced Path
 *	  into one part per device (sized by the devices' weights), each part
 *	  run whole on its device at the same time, the parts' outputs copied
 *	  back in order, one after the other in the output.
 *
 * A key-rank pair never straddles two parts (the same starred-diagonal
 * split as between tiles and chunks), so the concatenation is the
 * operation's answer.  One host thread per part drives its device: its
 * uploads, kernels and downloads run on that device's copy engines and
 * PCIe (or NVLink) link, in parallel with the others'.  A part's output
 * stays on its device until every part has its count; then, in a second
 * round of threads, each lands straight at its place (no second pass over
 * the output on the host).  A thread that cannot be started has its part
 * run by the calling thread instead.
 *
 * The threads call no PostgreSQL code and run with every signal blocked,
 * so signals keep reaching the calling (PostgreSQL) thread.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"

typedef struct PartJob
{
	SetopsGpuSetopArgs *args;
	int			part;
	int			device;
	SetopPart	work;			/* its range; its pool, output still there; its count */
	int64_t		offset;			/* where its output goes, once all are counted */
	/* results */
	SetopsGpuStatus status;
	double		ms_upload;
	double		ms_kernel;
	double		ms_download;
	char		errbuf[SETOPS_GPU_ERRLEN];
} PartJob;

/* The part's work up to its count; downloads after the barrier. */
static SetopsGpuStatus
part_compute(PartJob *job, char *errbuf, size_t errlen)
{
	SetopPart  *work = &job->work;
	SetopsGpuStatus status;
	double		t0;

	CHECK_CUDA(gpu_set_device(job->device), "selecting the device");
	gpu_pool_select(GPU_SPLIT_POOL + job->part);
	status = setop_part_place(job->args, work, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	t0 = gpu_host_ms();
	status = setop_part_copy_in(job->args, work, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
		status = setop_part_run(job->args, work, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
	{
		job->ms_kernel = gpu_elapsed_ms(work->pool->ev[1], work->pool->ev[2]);
		job->ms_upload = gpu_host_ms() - t0 - job->ms_kernel;
	}
	return status;
}

/* Round 1: upload, run, count. */
static void *
part_count(void *arg)
{
	PartJob    *job = (PartJob *) arg;

	job->status = part_compute(job, job->errbuf, sizeof(job->errbuf));
	return NULL;
}

/* Round 2: the part's output to its place. */
static void *
part_download(void *arg)
{
	PartJob    *job = (PartJob *) arg;
	double		t0 = gpu_host_ms();
	cudaError_t err;

	if (job->work.count == 0 || job->args->count_mode != SETOPS_GPU_COUNT_NONE)
		return NULL;
	err = gpu_set_device(job->device);
	gpu_pool_select(GPU_SPLIT_POOL + job->part);
	if (err != cudaSuccess)
		job->status = gpu_fail(err, "downloading the result", job->errbuf, sizeof(job->errbuf));
	else
		job->status = setop_part_copy_out(job->args, &job->work, job->offset, job->errbuf,
										  sizeof(job->errbuf));
	job->ms_download = gpu_host_ms() - t0;
	return NULL;
}

/* One round: a thread per part (signals blocked), joined. */
static void
run_round(PartJob *jobs, int nparts, void *(*fn) (void *))
{
	pthread_t	threads[GPU_MAX_DEVICES];
	bool		started[GPU_MAX_DEVICES];
	sigset_t	all,
				old;
	int			device = gpu_current_device(),
				pool = gpu_pool_selected(),
				p;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (p = 0; p < nparts; p++)
		started[p] = pthread_create(&threads[p], NULL, fn, &jobs[p]) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (p = 0; p < nparts; p++)
		if (!started[p])
			fn(&jobs[p]);
	for (p = 0; p < nparts; p++)
		if (started[p])
			pthread_join(threads[p], NULL);
	/* a part run here moved this thread to its device: back */
	gpu_set_device(device);
	gpu_pool_select(pool);
}

/*
 * The operation split over nparts parts, part i on devices[i] with a share
 * of the inputs proportional to weights[i] (a device may appear twice: the
 * tests split on one GPU).  Keys only, in host memory (pinned or not); any
 * other form runs on devices[0] alone.
 */
extern "C" SetopsGpuStatus
setops_gpu_setop_devices(SetopsGpuSetopArgs *args, int nparts, const int *devices,
						 const double *weights, char *errbuf, size_t errlen)
{
	PartJob		jobs[GPU_MAX_DEVICES];
	SetopsChunks c;
	double		total_weight = 0,
				cum = 0;
	int64_t		total = args->na + args->nb,
				k = 0;
	int			p,
				flags = 0;
	SetopsGpuStatus status = SETOPS_GPU_OK;

	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	for (p = 0; p < nparts; p++)
		total_weight += weights[p] > 0 ? weights[p] : 0;
	/* one part, other forms, or parts the kernels cannot take whole */
	if (nparts < 2 || nparts > GPU_MAX_DEVICES || total_weight <= 0 || !args->a || !args->b ||
		args->a_packed || args->b_packed || args->a_dev || args->b_dev || args->a_vals ||
		args->out_packed || total > (int64_t) nparts * (INT_MAX / 4))
	{
		SetopsGpuStatus st = setops_gpu_use_device(devices[0], errbuf, errlen);

		return st == SETOPS_GPU_OK ? setops_gpu_setop(args, errbuf, errlen) : st;
	}

	setops_gpu_answer_reset(args);

	/* the parts: diagonals at the weights' cumulative shares */
	memset(jobs, 0, sizeof(jobs));
	setops_chunks_begin(&c, args->op, args->key_type, args->a, args->na, args->b, args->nb, 0);
	for (p = 0; p < nparts; p++)
	{
		PartJob    *job = &jobs[p];

		cum += weights[p] > 0 ? weights[p] : 0;
		job->args = args;
		job->part = p;
		job->device = devices[p];
		/* (false with nothing left: an empty part) */
		(void) setops_chunks_cut(&c, p == nparts - 1 ? total :
								 (int64_t) (total * (cum / total_weight)));
		if (c.disorder & SETOPS_CHUNKS_LOST)
			return gpu_report_disorder(args, SETOPS_CHUNKS_LOST, errbuf, errlen);
		job->work.ai = c.ai;
		job->work.a_end = c.a_end;
		job->work.bi = c.bi;
		job->work.b_end = c.b_end;
		/* a part too large for one launch (skewed weights): all on one device */
		if (c.a_end - c.ai + c.b_end - c.bi > INT_MAX / 2)
		{
			SetopsGpuStatus st = setops_gpu_use_device(devices[0], errbuf, errlen);

			return st == SETOPS_GPU_OK ? setops_gpu_setop(args, errbuf, errlen) : st;
		}
	}
	/* the order across the parts' boundaries */
	if (c.disorder)
		return gpu_report_disorder(args, c.disorder, errbuf, errlen);

	run_round(jobs, nparts, part_count);
	for (p = 0; p < nparts; p++)
	{
		if (jobs[p].status != SETOPS_GPU_OK || jobs[p].work.flags != 0)
			break;
		jobs[p].offset = k;
		k += jobs[p].work.count;
	}
	if (p == nparts)
		run_round(jobs, nparts, part_download);
	k = 0;

	for (p = 0; p < nparts; p++)
	{
		PartJob    *job = &jobs[p];

		if (job->status != SETOPS_GPU_OK && status == SETOPS_GPU_OK)
		{
			status = job->status;
			snprintf(errbuf, errlen, "device %d: %s", job->device, job->errbuf);
		}
		flags |= job->work.flags;
		k += job->work.count;
		/* the parts ran side by side: the slowest one's times */
		args->ms_upload = args->ms_upload > job->ms_upload ? args->ms_upload : job->ms_upload;
		args->ms_kernel = args->ms_kernel > job->ms_kernel ? args->ms_kernel : job->ms_kernel;
		args->ms_download = args->ms_download > job->ms_download ? args->ms_download : job->ms_download;
	}
	if (status != SETOPS_GPU_OK)
		return status;
	/* a key in both answers overlaps whatever the order elsewhere */
	if (args->count_mode == SETOPS_GPU_COUNT_OVERLAPS && k > 0)
	{
		args->out_count = 1;
		return SETOPS_GPU_OK;
	}
	if (flags)
		return gpu_report_disorder(args, flags, errbuf, errlen);
	args->out_count = k;
	return SETOPS_GPU_OK;
}
