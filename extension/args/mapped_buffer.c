/*
 * mapped_buffer.c
 *	  A buffer that grows without being copied: its own anonymous mapping,
 *	  enlarged by mremap, with huge pages where the kernel offers them.
 *
 * An aggregate's state receives every row's keys (400 MB for 10,000 rows
 * of 10,000 int4).  Grown by repalloc, each doubling may copy what is
 * there, and every new page is faulted in 4 kB at a time: on the lent GPU
 * host that costs more than reading the rows.  A mapping moves by its page
 * tables, and 2 MB pages fault 512 times less often.  Its pages count
 * towards no memory context; the buffer is unmapped when the context it
 * is registered with is reset or deleted (ERROR included), or by
 * setops_mapped_free.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "setops.h"
#include "args/args.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#ifdef MREMAP_MAYMOVE

static void
mapped_reset_callback(void *arg)
{
	setops_mapped_free((SetopsMappedBuffer *) arg);
}

bool
setops_mapped_available(void)
{
	return true;
}

void *
setops_mapped_grow(SetopsMappedBuffer *m, Size bytes, MemoryContext owner)
{
	void	   *p;

	if (bytes <= m->bytes)
		return m->p;
	if (m->p == NULL)
	{
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
		{
			/* the flag stays with the mapping as it grows or moves */
			(void) madvise(p, bytes, MADV_HUGEPAGE);
			if (!m->registered)
			{
				m->callback.func = mapped_reset_callback;
				m->callback.arg = m;
				MemoryContextRegisterResetCallback(owner, &m->callback);
				m->registered = true;
			}
		}
	}
	else
		p = mremap(m->p, m->bytes, bytes, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed to map %zu bytes: %m.", bytes)));
	m->p = p;
	m->bytes = bytes;
	return p;
}

void
setops_mapped_free(SetopsMappedBuffer *m)
{
	if (m->p != NULL)
		(void) munmap(m->p, m->bytes);
	m->p = NULL;
	m->bytes = 0;
}

#else							/* no mremap: callers keep to palloc */

bool
setops_mapped_available(void)
{
	return false;
}

void *
setops_mapped_grow(SetopsMappedBuffer *m, Size bytes, MemoryContext owner)
{
	elog(ERROR, "setops: mapped buffers need mremap");
	return NULL;
}

void
setops_mapped_free(SetopsMappedBuffer *m)
{
}

#endif
