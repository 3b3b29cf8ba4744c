/*
 * worker_exec.c
 *	  The GPU service's executors: threads of the worker that run operations
 *	  side by side, setops.service_streams of them a device, each on a CUDA
 *	  stream (and pool of buffers) of its own.
 *
 * The worker's main thread stays the only one that touches PostgreSQL: it
 * takes requests from the slots, looks their cached arguments up, chooses
 * the device, pins what the operation reads (service_cache_hold) and hands
 * a job to that device's queue.  An executor runs the job's operation,
 * writes the answer into the slot and hands the slot back to its backend
 * (atomics and SetLatch only); the main thread later reaps the job (unpins
 * the cache, wakes backends waiting for a slot the job freed).  So one
 * request's upload, another's kernel and a third's download overlap on a
 * device, and independent requests run on every device at once.
 *
 * Counts of two cached arrays go instead to the device's count runners
 * (setops.service_count_runners, 0: the executors): threads that each keep
 * setops.service_count_trips shared trips of counts in flight and poll
 * them all, so that a device's counts keep that many cores waiting for the
 * GPU, not one an executor.
 *
 * Threads never palloc, ereport or longjmp: what they call returns a
 * status (device_ops.h), and they run with every signal blocked, so that
 * PostgreSQL's signals reach the main thread.
 */
#include "postgres.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/worker.h"
#include "service/device_ops.h"
#include "engine/common/clock_ms.h"

int			setops_service_streams = 4;
int			setops_service_gpu_wait = SETOPS_GPU_WAIT_AUTO;
bool		setops_service_coalesce = true;
int			setops_service_poll_us = 300;
int			setops_service_poll_executors = 1;
int			setops_service_count_runners = 2;
int			setops_service_count_trips = 1;

/* Jobs waiting for one device's executors. */
typedef struct ExecQueue
{
	pthread_mutex_t lock;
	pthread_cond_t ready;
	ServiceJob *head;
	ServiceJob *tail;
	int			polling;		/* idle executors looking for work, not asleep */
} ExecQueue;

typedef struct Executor
{
	pthread_t	thread;
	int			device;
	int			stream;
} Executor;

/*
 * A count runner: a thread of a device that keeps up to
 * setops.service_count_trips shared trips of counts in flight, each on a
 * stream of its own, and polls them all; so that a device's counts keep
 * setops.service_count_runners cores waiting for the GPU, not one an
 * executor.
 */
typedef struct CountTrip
{
	int			stream;
	int			n;				/* its counts; 0: the stream is free */
	double		t0;
	uint64		epoch;			/* the device's context it started in */
	SetopsGpuStatus failed;		/* its start's failure, ended at the next poll */
	ServiceJob *jobs[SETOPS_GPU_MANY];
} CountTrip;

typedef struct CountRunner
{
	pthread_t	thread;
	int			device;
	int			ntrips;
	CountTrip	trips[SETOPS_GPU_MAX_STREAMS];
} CountRunner;

static ExecQueue queues[SERVICE_MAX_DEVICES];
static ExecQueue count_queues[SERVICE_MAX_DEVICES];
static Executor *executors = NULL;
static int	nexecutors = 0;
static CountRunner *runners = NULL;
static int	nrunners = 0;
static int	device_runners[SERVICE_MAX_DEVICES];	/* started, per device */
static volatile bool stopping = false;

/* Jobs answered, for the main thread to reap. */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static ServiceJob *done_head = NULL;

/* Jobs not in use (main thread only). */
static ServiceJob *free_jobs = NULL;

static Latch *main_latch = NULL;
static __thread bool on_executor = false;

/*
 * The answer (args, status, message) into jobs[0]'s slot, the slot back to
 * its backend; the n jobs (a request's, all done) to be reaped.
 */
static void
answer_slot(ServiceJob **jobs, int n, const SetopsGpuSetopArgs *args, SetopsGpuStatus status,
			const char *errmsg)
{
	ServiceSlot *slot = &setops_service->slots[jobs[0]->slot_index];
	ServiceSetopRequest *r = &slot->req.setop;
	uint32		state;
	bool		wake;
	int			i;

	/* the answers go back in the request (the main thread leaves a running slot alone) */
	r->args = *args;
	service_args_unbind(&r->args);
	slot->status = status;
	strlcpy(slot->errmsg, errmsg, sizeof(slot->errmsg));
	/*
	 * (from here the slot may serve the backend's next request: jobs must
	 * be the caller's copy, not anything the next request may reuse)
	 */
	state = service_hand_back(slot);
	wake = state != SLOT_FREE && service_free_from(slot, state);
	jobs[0]->wake_slot_waiters = wake;

	pthread_mutex_lock(&done_lock);
	for (i = 0; i < n; i++)
	{
		jobs[i]->next = done_head;
		done_head = jobs[i];
	}
	pthread_mutex_unlock(&done_lock);
	/* what cannot wait for the main thread's next round (the jobs may be reaped already) */
	if (wake || status == SETOPS_GPU_ERROR)
		SetLatch(main_latch);
}

/*
 * The job's answer into its slot, the slot back to its backend; the job to
 * be reaped.  A part of a split count answers only as the last of its
 * request's parts, for them all.
 */
static void
answer_job(ServiceJob *job, SetopsGpuStatus status, const char *errbuf)
{
	ServiceDeviceStats *stats = &setops_service->load[job->device];
	SetopsGpuSetopArgs whole;
	ServiceJob *parts[SERVICE_MAX_DEVICES];
	int			nparts;
	const char *errmsg;

	pg_atomic_fetch_add_u64(&stats->requests, 1);
	pg_atomic_fetch_add_u64(&stats->wait_us, (uint64) (job->ms_queue * 1000));
	job->args.device = job->device;
	job->args.ms_queue = job->ms_queue;
	job->status = status;
	/*
	 * (off the device's load before the backend can see its answer: else
	 * its next request, routed meanwhile, found this device still busy and
	 * went to another, and one session's calls alternated between GPUs)
	 */
	pg_atomic_fetch_sub_u32(&stats->queued, 1);
	if (job->split == NULL)
		answer_slot(&job, 1, &job->args, status, errbuf);
	else if (service_split_part_done(job, errbuf, parts, &nparts, &whole, &status, &errmsg))
		answer_slot(parts, nparts, &whole, status, errmsg);
}

/* A run of n jobs on the device starts (t0) and ends now: its figures. */
static void
count_run(ServiceJob **jobs, int n, double t0)
{
	ServiceDeviceStats *stats = &setops_service->load[jobs[0]->device];
	int			i;

	pg_atomic_fetch_add_u64(&stats->launches, 1);
	pg_atomic_fetch_add_u64(&stats->run_us, (uint64) ((setops_clock_ms() - t0) * 1000));
	if (n > 1)
		pg_atomic_fetch_add_u64(&stats->batched, n);
	for (i = 0; i < n; i++)
		jobs[i]->ms_queue = t0 - jobs[i]->submitted_ms;
}

/*
 * A job whose device was reset (after a device fault) since it was bound
 * there: the keys it holds there are gone, and a launch would read
 * whatever the device put in their place.
 */
static bool
job_stale(const ServiceJob *job)
{
	return (job->args.a_dev != NULL || job->args.b_dev != NULL) &&
		service_device->device_epoch(job->device) != job->epoch;
}

/* jobs[0..n) less the stale ones, answered with an error; how many are left */
static int
drop_stale(ServiceJob **jobs, int n)
{
	int			kept = 0,
				i;

	for (i = 0; i < n; i++)
	{
		if (!job_stale(jobs[i]))
			jobs[kept++] = jobs[i];
		else
		{
			jobs[i]->ms_queue = setops_clock_ms() - jobs[i]->submitted_ms;
			answer_job(jobs[i], SETOPS_GPU_ERROR, SERVICE_RESET_MSG);
		}
	}
	return kept;
}

/*
 * Counts of jobs[0..n) answered, statuses[] theirs: one whose device was
 * reset since it was bound fails, and goes again alone (answer_counts),
 * where drop_stale answers it.
 */
static void
fail_stale(ServiceJob **jobs, int n, SetopsGpuStatus *statuses)
{
	int			i;

	for (i = 0; i < n; i++)
		if (job_stale(jobs[i]))
			statuses[i] = SETOPS_GPU_ERROR;
}

/* Run one job: its operation, its answer. */
static void
run_job(const Executor *x, ServiceJob *job)
{
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	SetopsGpuStatus status;
	double		t0 = setops_clock_ms();

	if (drop_stale(&job, 1) == 0)
		return;
	status = service_device->use_stream(job->device, x->stream, errbuf, sizeof(errbuf));
	service_serving = &setops_service->slots[job->slot_index];
	if (status == SETOPS_GPU_OK)
		status = service_device->setop(&job->args, errbuf, sizeof(errbuf));
	service_serving = NULL;
	/* (a reset while it ran: what it read may have been lost under it) */
	if (status == SETOPS_GPU_OK && job_stale(job))
	{
		status = SETOPS_GPU_ERROR;
		strlcpy(errbuf, SERVICE_RESET_MSG, sizeof(errbuf));
	}
	count_run(&job, 1, t0);
	answer_job(job, status, errbuf);
}

/* A count of two cached arrays: it may share its launch with others. */
static bool
coalescible(const ServiceJob *job)
{
	return setops_service_coalesce && job->args.count_mode != SETOPS_GPU_COUNT_NONE &&
		job->args.a_dev != NULL && job->args.b_dev != NULL;
}

/*
 * The counts of a shared trip answered, with the trip's status and each
 * count's.  A count the trip failed goes again alone on stream, so that
 * one count's failure (a device error in its launch, memory) is its own
 * and not its neighbours'.
 */
static void
answer_counts(int stream, ServiceJob **jobs, int n, SetopsGpuStatus status,
			  const SetopsGpuStatus *statuses, char (*errbufs)[SETOPS_GPU_ERRLEN])
{
	Executor	alone = {.device = jobs[0]->device,.stream = stream};
	int			i;

	for (i = 0; i < n; i++)
	{
		if (status != SETOPS_GPU_OK || statuses[i] != SETOPS_GPU_OK)
		{
			run_job(&alone, jobs[i]);
			continue;
		}
		jobs[i]->args.batched = n;
		answer_job(jobs[i], statuses[i], errbufs[i]);
	}
}

/*
 * Counts of cached arrays that wait together go to the device at once
 * (count_many: their launches queued back to back, one wait), each answer
 * to its own slot.  A count never waits for company: the batch is what
 * waited in the queue while the device's executors were busy.
 */
static void
run_counts(const Executor *x, ServiceJob **jobs, int n)
{
	SetopsGpuSetopArgs *args[SETOPS_GPU_MANY];
	SetopsGpuStatus statuses[SETOPS_GPU_MANY];
	char		errbufs[SETOPS_GPU_MANY][SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;
	double		t0 = setops_clock_ms();
	int			i;

	if ((n = drop_stale(jobs, n)) == 0)
		return;
	status = service_device->use_stream(jobs[0]->device, x->stream, errbufs[0], SETOPS_GPU_ERRLEN);
	for (i = 0; i < n; i++)
		args[i] = &jobs[i]->args;
	if (status == SETOPS_GPU_OK)
		service_device->count_many(args, n, statuses, errbufs);
	fail_stale(jobs, n, statuses);
	count_run(jobs, n, t0);
	answer_counts(x->stream, jobs, n, status, statuses, errbufs);
}

/*
 * The next jobs of queue q for one run (q locked): its first job, and with
 * a coalescible one the others queued behind it, up to SETOPS_GPU_MANY.
 */
static int
take_jobs(ExecQueue *q, ServiceJob **jobs)
{
	ServiceJob **link = &q->head;
	int			n = 0;

	jobs[n++] = q->head;
	q->head = q->head->next;
	if (coalescible(jobs[0]))
		for (link = &q->head; *link != NULL && n < SETOPS_GPU_MANY;)
		{
			if (coalescible(*link))
			{
				jobs[n++] = *link;
				*link = (*link)->next;
			}
			else
				link = &(*link)->next;
		}
	/* the tail, after what was taken */
	q->tail = NULL;
	for (link = &q->head; *link != NULL; link = &(*link)->next)
		q->tail = *link;
	return n;
}

static void *
executor_main(void *arg)
{
	const Executor *x = (const Executor *) arg;
	ExecQueue  *q = &queues[x->device];
	ServiceJob *jobs[SETOPS_GPU_MANY];

	on_executor = true;
	for (;;)
	{
		int			n = 0;
		bool		polled = false;
		unsigned long long cpu0,
					cpu1;

		pthread_mutex_lock(&q->lock);
		while (q->head == NULL && !stopping)
		{
			/*
			 * Only setops.service_poll_executors of a device's idle
			 * executors poll; the others sleep at once.  Each spinning
			 * thread holds a core, and one poller finds a job as soon as
			 * any would (with every count queued behind it).
			 */
			if (!polled && q->polling < setops_service_poll_executors)
			{
				/* (the head read unlocked is a hint: jobs are taken under the lock) */
				q->polling++;
				pthread_mutex_unlock(&q->lock);
				polled = true;
				(void) service_poll((void *const volatile *) &q->head, NULL);
				pthread_mutex_lock(&q->lock);
				q->polling--;
				continue;
			}
			pthread_cond_wait(&q->ready, &q->lock);
		}
		if (!stopping)
			n = take_jobs(q, jobs);
		pthread_mutex_unlock(&q->lock);
		if (n == 0)
			return NULL;
		cpu0 = setops_thread_cpu_ns();
		if (n == 1)
			run_job(x, jobs[0]);
		else
			run_counts(x, jobs, n);
		/* (the service's CPU time per request: setops_service->request_cpu_ns) */
		cpu1 = setops_thread_cpu_ns();
		if (cpu1 > cpu0)
			pg_atomic_fetch_add_u64(&setops_service->exec_cpu_ns, cpu1 - cpu0);
	}
}

static void trip_take(const CountRunner *r, CountTrip *t);

/*
 * Trip t's counts answered: finished if status is OK, else each alone.
 * A trip that went well frees its stream first, and the counts queued
 * meanwhile start on it before these answers go out: answering is a
 * SetLatch a count, and the GPU should not wait for those.
 */
static void
trip_end(const CountRunner *r, CountTrip *t, SetopsGpuStatus status)
{
	SetopsGpuSetopArgs *args[SETOPS_GPU_MANY];
	SetopsGpuStatus statuses[SETOPS_GPU_MANY];
	char		errbufs[SETOPS_GPU_MANY][SETOPS_GPU_ERRLEN];
	ServiceJob *jobs[SETOPS_GPU_MANY];
	bool		clean = status == SETOPS_GPU_OK;
	int			n = t->n,
				i;

	for (i = 0; i < n; i++)
	{
		args[i] = &t->jobs[i]->args;
		statuses[i] = status;
	}
	if (status == SETOPS_GPU_OK)
		service_device->count_finish(args, n, statuses, errbufs);
	fail_stale(t->jobs, n, statuses);
	count_run(t->jobs, n, t->t0);
	for (i = 0; i < n; i++)
	{
		jobs[i] = t->jobs[i];
		clean &= statuses[i] == SETOPS_GPU_OK;
	}
	t->n = 0;
	/* (a count that failed goes again alone on this stream: it stays free till then) */
	if (clean)
		trip_take(r, t);
	answer_counts(t->stream, jobs, n, status, statuses, errbufs);
}

/*
 * Trip t (its jobs taken) started on its stream.  A start that failed ends
 * at the trip's next poll, each count alone, after the answers this
 * runner is sending.
 */
static void
trip_start(const CountRunner *r, CountTrip *t)
{
	SetopsGpuSetopArgs *args[SETOPS_GPU_MANY];
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	int			i;

	t->t0 = setops_clock_ms();
	/* (its counts' device memory as they were bound to it: drop_stale kept those alike) */
	t->epoch = t->jobs[0]->epoch;
	for (i = 0; i < t->n; i++)
		args[i] = &t->jobs[i]->args;
	t->failed = service_device->use_stream(r->device, t->stream, errbuf, sizeof(errbuf));
	if (t->failed == SETOPS_GPU_OK)
		t->failed = service_device->count_start(args, t->n, errbuf, sizeof(errbuf));
}

/* The counts queued for r's device (up to SETOPS_GPU_MANY) as trip t, started. */
static void
trip_take(const CountRunner *r, CountTrip *t)
{
	ExecQueue  *q = &count_queues[r->device];

	/* (the head read unlocked is a hint: jobs are taken under the lock) */
	if (q->head == NULL || stopping)
		return;
	pthread_mutex_lock(&q->lock);
	if (q->head != NULL)
		t->n = take_jobs(q, t->jobs);
	pthread_mutex_unlock(&q->lock);
	t->n = drop_stale(t->jobs, t->n);
	if (t->n > 0)
		trip_start(r, t);
}

/*
 * Trip t answered if it is done.  A device reset since it started (a
 * fault elsewhere on the device) took its stream, its buffers and the
 * cached keys it counts: its counts fail, none goes again.
 */
static void
trip_poll(const CountRunner *r, CountTrip *t)
{
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	SetopsGpuStatus status = t->failed;
	int			done = -1,
				i;

	if (status == SETOPS_GPU_OK && service_device->device_epoch(r->device) != t->epoch)
	{
		count_run(t->jobs, t->n, t->t0);
		for (i = 0; i < t->n; i++)
			answer_job(t->jobs[i], SETOPS_GPU_ERROR,
					   "the GPU was reset while this count was on it");
		t->n = 0;
		return;
	}
	if (status == SETOPS_GPU_OK)
		status = service_device->use_stream(r->device, t->stream, errbuf, sizeof(errbuf));
	if (status == SETOPS_GPU_OK)
		done = service_device->stream_done(errbuf, sizeof(errbuf));
	if (done != 0)
		trip_end(r, t, done > 0 ? SETOPS_GPU_OK : SETOPS_GPU_ERROR);
}

/*
 * While r's trips fly, as setops.service_gpu_wait says: on the core (spin),
 * asleep until its first trip's stream is done (block), or else giving the
 * core to a thread that waits for one (yield, auto).  At 64 sessions
 * backends wait for cores while runners spin: yielding kept the counts'
 * rate and halved their p99 latency on 2x H200, where sleeping lost 10% to
 * 30% of the rate (test/bench/results/h200x2/runner_wait_20261130.log).
 */
static void
runner_wait(const CountRunner *r)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	int			i;

	if (setops_service_gpu_wait == SETOPS_GPU_WAIT_SPIN)
		pg_spin_delay();
	else if (setops_service_gpu_wait == SETOPS_GPU_WAIT_BLOCK)
	{
		for (i = 0; i < r->ntrips; i++)
			if (r->trips[i].n > 0 && r->trips[i].failed == SETOPS_GPU_OK)
			{
				if (service_device->use_stream(r->device, r->trips[i].stream, errbuf,
											   sizeof(errbuf)) == SETOPS_GPU_OK)
					service_device->stream_wait();
				return;
			}
	}
	else
		(void) sched_yield();
}

/*
 * A count runner: answers the trips that are done, starts the counts that
 * queued meanwhile on a free stream (all of them, up to SETOPS_GPU_MANY,
 * in one shared trip), and waits (runner_wait) while any trip flies.
 * Idle, it polls its queue as an executor does, then sleeps.  Its CPU time while trips
 * fly is the counts' (setops_service->exec_cpu_ns).
 */
static void *
runner_main(void *arg)
{
	CountRunner *r = (CountRunner *) arg;
	ExecQueue  *q = &count_queues[r->device];
	unsigned long long cpu_from = 0;
	bool		busy = false;
	uint32		spins = 0;

	on_executor = true;
	pthread_mutex_lock(&q->lock);
	q->polling++;
	pthread_mutex_unlock(&q->lock);
	for (;;)
	{
		int			flying = 0,
					i;

		if (!busy)
			cpu_from = setops_thread_cpu_ns();
		for (i = 0; i < r->ntrips; i++)
		{
			CountTrip  *t = &r->trips[i];

			if (t->n > 0)
				trip_poll(r, t);
			if (t->n == 0)
				trip_take(r, t);
			flying += t->n > 0;
		}
		/* (its CPU time counted now and then while busy, and when it ends) */
		if (flying == 0 || ++spins % 4096 == 0)
		{
			unsigned long long now = setops_thread_cpu_ns();

			if (now > cpu_from)
				pg_atomic_fetch_add_u64(&setops_service->exec_cpu_ns, now - cpu_from);
			cpu_from = now;
		}
		busy = flying > 0;
		/* (stopping, the trips in flight are answered first: no new ones start) */
		if (stopping && flying == 0)
			break;
		if (flying > 0)
		{
			runner_wait(r);
			continue;
		}
		/* nothing in flight: poll for counts, then sleep */
		if (q->head == NULL && !service_poll((void *const volatile *) &q->head, NULL))
		{
			pthread_mutex_lock(&q->lock);
			q->polling--;
			while (q->head == NULL && !stopping)
				pthread_cond_wait(&q->ready, &q->lock);
			q->polling++;
			pthread_mutex_unlock(&q->lock);
		}
	}
	return NULL;
}

/*
 * Stop the executors (at worker exit).  Jobs still queued stay unanswered:
 * their backends see the worker go, and the next worker fails their slots.
 * Jobs running are answered first (an executor's, a runner's trips).
 */
static void
exec_stop(int code, Datum arg)
{
	service_exec_stop();
}

void
service_exec_stop(void)
{
	int			i;

	if (executors == NULL)
		return;
	stopping = true;
	for (i = 0; i < setops_service->ndevices; i++)
	{
		pthread_mutex_lock(&queues[i].lock);
		pthread_cond_broadcast(&queues[i].ready);
		pthread_mutex_unlock(&queues[i].lock);
		pthread_mutex_lock(&count_queues[i].lock);
		pthread_cond_broadcast(&count_queues[i].ready);
		pthread_mutex_unlock(&count_queues[i].lock);
	}
	for (i = 0; i < nexecutors; i++)
		pthread_join(executors[i].thread, NULL);
	for (i = 0; i < nrunners; i++)
		pthread_join(runners[i].thread, NULL);
	nexecutors = 0;
	executors = NULL;
	nrunners = 0;
	runners = NULL;
}

/*
 * A thread's name, "setops execD.S" or "setops runD.K" (device, then
 * stream or runner), for ps -L, top -H and load_bench's schedstat by kind.
 * The kernel keeps 15 bytes: the longest, "setops exec7.15", fits.
 */
static void
name_thread(pthread_t thread, const char *kind, int device, int index)
{
#ifdef __linux__
	char		name[16];

	snprintf(name, sizeof(name), "setops %s%d.%d", kind, device, index);
	(void) pthread_setname_np(thread, name);
#endif
}

/*
 * setops.service_streams executors for every device (streams 1.. of the
 * device: stream 0 is the main thread's own).  Without them (no device, or
 * no thread could start) the main thread runs every job itself.
 */
void
service_exec_start(void)
{
	int			ndev = setops_service->ndevices,
				per = Min(setops_service_streams, SETOPS_GPU_MAX_STREAMS - 1),
				trips,
				nrun,
				d,
				k,
				s;
	sigset_t	all,
				old;

	main_latch = MyLatch;
	for (d = 0; d < SERVICE_MAX_DEVICES; d++)
	{
		ExecQueue  *qs[2] = {&queues[d], &count_queues[d]};

		for (s = 0; s < 2; s++)
		{
			pthread_mutex_init(&qs[s]->lock, NULL);
			pthread_cond_init(&qs[s]->ready, NULL);
			qs[s]->head = qs[s]->tail = NULL;
			qs[s]->polling = 0;
		}
	}
	if (ndev == 0 || per < 1)
		return;
	executors = MemoryContextAllocZero(TopMemoryContext, sizeof(Executor) * ndev * per);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (d = 0; d < ndev; d++)
		for (s = 1; s <= per; s++)
		{
			Executor   *x = &executors[nexecutors];

			x->device = d;
			x->stream = s;
			if (pthread_create(&x->thread, NULL, executor_main, x) == 0)
			{
				name_thread(x->thread, "exec", d, s);
				nexecutors++;
			}
		}
	/*
	 * The count runners' streams follow the executors'.  A device whose
	 * runners could not start has its counts run by its executors.
	 */
	trips = Max(setops_service_count_trips, 1);
	nrun = Min(setops_service_count_runners, (SETOPS_GPU_MAX_STREAMS - 1 - per) / trips);
	if (nexecutors == 0 || !setops_service_coalesce)
		nrun = 0;
	else if (nrun < setops_service_count_runners)
		ereport(LOG,
				(errmsg("setops GPU service: %d count runners a GPU, not %d: %d streams are left after setops.service_streams, %d a runner",
						nrun, setops_service_count_runners, SETOPS_GPU_MAX_STREAMS - 1 - per,
						trips)));
	if (nrun > 0)
		runners = MemoryContextAllocZero(TopMemoryContext, sizeof(CountRunner) * ndev * nrun);
	for (d = 0; d < ndev; d++)
	{
		device_runners[d] = 0;
		for (k = 0; k < nrun; k++)
		{
			CountRunner *r = &runners[nrunners];

			r->device = d;
			r->ntrips = trips;
			for (s = 0; s < trips; s++)
				r->trips[s].stream = per + 1 + k * trips + s;
			if (pthread_create(&r->thread, NULL, runner_main, r) == 0)
			{
				name_thread(r->thread, "run", d, k);
				nrunners++;
				device_runners[d]++;
			}
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (nexecutors < ndev * per || nrunners < ndev * nrun)
		ereport(LOG,
				(errmsg("setops GPU service: %d of %d executor threads and %d of %d count runners started",
						nexecutors, ndev * per, nrunners, ndev * nrun)));
	setops_service->streams = nexecutors / ndev;
	if (nexecutors == 0)
		executors = NULL;
	else
		before_shmem_exit(exec_stop, (Datum) 0);
}

/*
 * Look for work for up to setops.service_poll_us before sleeping: true as
 * soon as *word is set (a queue's head) or *flag (a latch's is_set).  Under
 * load the next request comes sooner than a wake-up would bring it: a
 * sleeping thread or process is woken by a signal or futex and then waits
 * for a core, which at 64 busy sessions is what makes the slow tail.
 */
bool
service_poll(void *const volatile *word, const volatile sig_atomic_t *flag)
{
	double		until;
	int			spins = 0;

	if (setops_service_poll_us <= 0)
		return false;
	until = setops_clock_ms() + setops_service_poll_us / 1000.0;
	for (;;)
	{
		if ((word != NULL && *word != NULL) || (flag != NULL && *flag) || stopping)
			return true;
		pg_spin_delay();
		if (++spins % 64 == 0 && setops_clock_ms() >= until)
			return false;
	}
}

/* A job for the request in slot_index, cleared. */
ServiceJob *
service_exec_job(int slot_index)
{
	ServiceJob *job = free_jobs;

	if (job != NULL)
		free_jobs = job->next;
	else
		job = MemoryContextAlloc(TopMemoryContext, sizeof(ServiceJob));
	memset(job, 0, sizeof(*job));
	job->slot_index = slot_index;
	return job;
}

/*
 * Job to run on device, before what it reads there is held (the device's
 * memory as it is now: a reset later loses it, job_stale).
 */
void
service_exec_bind(ServiceJob *job, int device)
{
	job->device = device;
	job->epoch = service_device->device_epoch(device);
}

/* A job done with: what it held released, back to the free list. */
static void
job_done(ServiceJob *job)
{
	service_cache_release(&job->holds[0]);
	service_cache_release(&job->holds[1]);
	job->next = free_jobs;
	free_jobs = job;
}

/* Jobs queued or running on device. */
int
service_exec_load(int device)
{
	return (int) pg_atomic_read_u32(&setops_service->load[device].queued);
}

/*
 * Hand job to its device's executors; without executors, run it here
 * (answered, the slot handed back) and reap it.
 */
void
service_exec_submit(ServiceJob *job)
{
	bool		to_runner = device_runners[job->device] > 0 && coalescible(job);
	ExecQueue  *q = to_runner ? &count_queues[job->device] : &queues[job->device];

	job->submitted_ms = setops_clock_ms();
	pg_atomic_fetch_add_u32(&setops_service->load[job->device].queued, 1);
	if (executors == NULL)
	{
		static const Executor here = {.stream = 0};

		/*
		 * (an ERROR, the emulated device's CPU engine stopping for a
		 * backend that gave up, fails the request in serve_slots: the job
		 * goes, and its holds with it, or its rows stay pinned)
		 */
		PG_TRY();
		{
			run_job(&here, job);
		}
		PG_CATCH();
		{
			pg_atomic_fetch_sub_u32(&setops_service->load[job->device].queued, 1);
			job_done(job);
			PG_RE_THROW();
		}
		PG_END_TRY();
		service_exec_reap();
		return;
	}
	job->next = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = job;
	else
		q->head = job;
	q->tail = job;
	/*
	 * A polling executor takes a lone job, and a count queued behind a
	 * count (take_jobs takes them together); any other job behind others
	 * wakes a sleeper, to overlap.  A count runner that is awake takes
	 * every count queued when a trip of its own frees; a count queued
	 * behind another wakes a runner that sleeps, if one does (the awake
	 * ones may all have their trips in flight).  (Each wake-up is a system
	 * call on this thread; a signal with no sleeper is not.)
	 */
	if (q->polling == 0 || (to_runner && q->head != job) ||
		(!to_runner && q->head != job && !(coalescible(q->head) && coalescible(job))))
		pthread_cond_signal(&q->ready);
	pthread_mutex_unlock(&q->lock);
}

/* A job that was never submitted: released. */
void
service_exec_drop(ServiceJob *job)
{
	job_done(job);
}

/*
 * The main thread reaps answered jobs: their cache holds released, and
 * backends waiting for a slot woken where a job freed one.  Returns
 * whether any failed with a device error (the caller checks the device).
 */
bool
service_exec_reap(void)
{
	ServiceJob *job,
			   *next;
	bool		wake = false,
				failed = false;

	pthread_mutex_lock(&done_lock);
	job = done_head;
	done_head = NULL;
	pthread_mutex_unlock(&done_lock);
	for (; job != NULL; job = next)
	{
		next = job->next;
		wake |= job->wake_slot_waiters;
		failed |= job->status == SETOPS_GPU_ERROR;
		job_done(job);
	}
	if (wake)
		service_wake_slot_waiters();
	return failed;
}

/* Whether this thread is an executor (the CPU engine's interrupt hook asks). */
bool
service_exec_thread(void)
{
	return on_executor;
}
