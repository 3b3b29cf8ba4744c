/*
 * args.h
 *	  Reading arguments (arrays, packed values, stored values by identity),
 *	  the forms the engines take them in, and building results:
 *	  args/array_io.c, packed_args.c, stored_value.c, keys_form.c,
 *	  mapped_buffer.c.  Used by funcs/ and exec/; uses engine/ only.
 */
#ifndef SETOPS_ARGS_H
#define SETOPS_ARGS_H

#include "setops.h"
#include "storage/block.h"
#include "storage/buf.h"
#include "utils/relcache.h"

extern SetopsKeyType setops_key_type_of(Oid elemtype);
extern void setops_read_keys(Datum array, int argno, const char *fname,
							 SetopsKeys *keys);
extern void setops_require_sorted(const char *fname, SetopsKeys *keys);
extern bool setops_keys_in_order(SetopsKeys *keys);
extern void setops_require_sorted2(const char *fname, SetopsKeys *a, SetopsKeys *b);
extern void setops_report_unsorted_found(const char *fname, SetopsKeys *a, SetopsKeys *b,
										 SetopsKeys *bad, int64 pos);
extern void setops_read_values(FunctionCallInfo fcinfo, Datum array, int argno,
							   const char *fname, int64 nkeys, int keys_argno,
							   SetopsValues *values);
extern void setops_report_unsorted(const char *fname, const SetopsKeys *keys,
								   int64 pos) pg_attribute_noreturn();

extern void setops_advise_huge_pages(void *p, Size bytes);

/* mapped_buffer.c: a buffer grown in place by mremap, freed with its context */
typedef struct SetopsMappedBuffer
{
	char	   *p;				/* NULL until first grown */
	Size		bytes;
	bool		registered;		/* callback set on the owner context */
	MemoryContextCallback callback;
} SetopsMappedBuffer;

extern bool setops_mapped_available(void);
extern void *setops_mapped_grow(SetopsMappedBuffer *m, Size bytes, MemoryContext owner);
extern void setops_mapped_free(SetopsMappedBuffer *m);
extern void setops_result_alloc(SetopsResult *res, Oid elemtype, int stride,
								int64 capacity, const char *fname);
extern Datum setops_result_finish(SetopsResult *res, int64 n, const char *fname);
extern Oid	setops_key_elemtype(SetopsKeyType type);
extern void setops_gather_values(char *dst, const int64 *pos, int64 n,
								 const SetopsValues *av, const SetopsValues *bv);

/* ---- packed arguments and results (packed_args.c) ---- */

extern void setops_read_arg(FunctionCallInfo fcinfo, int argidx, int argno,
							const char *fname, SetopsKeys *keys);
extern void setops_read_packed(Datum datum, int argno, const char *fname,
							   SetopsKeys *keys);
extern void setops_keys_decode(SetopsKeys *keys, const char *fname);
/* NULL, or why the keys of a checked value would not ascend */
struct PackedHeader;
extern const char *setops_packed_decode_into(const struct PackedHeader *h, void *keys);
extern void setops_release_packed(Datum datum, SetopsKeys *keys);
extern const char *setops_packed_type_name(SetopsKeyType type);
/* bytes from outside (receive, bytea): everything a reader relies on checked */
extern struct varlena *setops_packed_from_untrusted(const char *bytes, size_t len,
													SetopsKeyType type, const char *fname);
extern int64 setops_packed_count(Datum datum, const char *fname);
extern bool setops_packed_first_key(const SetopsKeys *keys, int64 *key);

/* ---- stored arguments by identity (stored_value.c) ---- */

extern void setops_read_arg_stored(FunctionCallInfo fcinfo, int argidx, int argno,
								   const char *fname, SetopsKeys *keys, int64 min_keys);
extern bool setops_read_stored_identity(Datum datum, Oid argtype, int argno, bool exact,
										SetopsKeys *keys, int64 min_keys);
extern void setops_read_stored(SetopsKeys *keys, const char *fname);
/*
 * While a batch reads its chunk's identities, the TOAST table they come
 * from stays open: begin and end around the reading (end closes it,
 * forget after an ERROR), each with the hold it nests in.
 */
typedef struct SetopsIdentityHold
{
	bool		holding;
	Relation	rel;
	BlockNumber nblocks;
	Oid			argtype;		/* the rows' type, and its element type */
	Oid			elemtype;
	uint32		reads;			/* identities read (the clock looked at every 64th) */
} SetopsIdentityHold;

/*
 * Identities read by parallel readers, remembered by the backend they
 * read for: it marks the OID counter before they start, then learns what
 * each read (stored_value.c, identity_remembered: the mark bounds how
 * long one stands).
 */
typedef struct SetopsOidMark
{
	Oid			next;			/* the counter's value */
	uint64		clock;			/* how far it moved since the backend followed it */
} SetopsOidMark;

extern void setops_identity_mark(SetopsOidMark *now);
extern void setops_identity_make_room(int64 n);
extern void setops_identity_learn(const struct varatt_external *pointer, Oid elemtype,
								  const SetopsCacheKey *key, int64 n,
								  const SetopsOidMark *then);
extern void setops_identity_hold_begin(SetopsIdentityHold *saved);
extern void setops_identity_hold_end(const SetopsIdentityHold *saved);
extern void setops_identity_hold_forget(const SetopsIdentityHold *saved);
extern bool setops_read_stored_into(Datum datum, Oid elemtype,
									void *(*room) (int64 n, void *arg), void *arg,
									void **keys, int64 *n, SetopsCacheKey *key,
									BufferAccessStrategy strategy);
extern bool setops_read_stored_packed_into(Datum datum,
										   void *(*room) (int64 n, SetopsKeyType type,
														  void *arg),
										   void *arg, SetopsCacheKey *key, int64 *n,
										   BufferAccessStrategy strategy);
extern bool setops_returns_packed(FunctionCallInfo fcinfo);
extern Datum setops_packed_datum(SetopsKeyType type, const void *keys, int64 n,
								 const char *fname);
extern Datum setops_packed_finish(void *v, size_t size, const char *fname);

/* ---- the forms the engines take (keys_form.c) ---- */

/* Plain keys: a stored argument read, a packed one decoded. */
extern void setops_keys_make_plain(SetopsKeys *keys, const char *fname);
/* Both arguments as the CPU engine takes them: plain, a first. */
extern void setops_keys_for_cpu(SetopsKeys *a, SetopsKeys *b, const char *fname);

/* How an argument goes to the GPU service. */
typedef enum SetopsSendForm
{
	SETOPS_SEND_IDENTITY,		/* its cache key alone: the cache holds its keys */
	SETOPS_SEND_HELD,			/* read: its keys, or a packed value whole */
	SETOPS_SEND_KEYS			/* read and decoded: its keys */
} SetopsSendForm;

extern void setops_keys_for_gpu(SetopsGpuSetopArgs *args, SetopsKeys *a, SetopsSendForm a_send,
								SetopsKeys *b, SetopsSendForm b_send, const char *fname);
extern bool setops_keys_packed_undecoded(const SetopsKeys *keys);

#endif							/* SETOPS_ARGS_H */
