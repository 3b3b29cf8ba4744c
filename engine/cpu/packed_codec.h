/*
 * packed_codec.h
 *	  Encoder, validator and decoder of packed sorted integers (format in
 *	  engine/common/packed_format.h).  Plain C, no PostgreSQL headers; the caller
 *	  owns every buffer.
 */
#ifndef SETOPS_PACKED_CODEC_H
#define SETOPS_PACKED_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "../common/packed_format.h"

/* Bytes that always suffice to pack n keys of key_bytes (4 or 8). */
extern size_t setops_packed_bound(int key_bytes, int64_t n);

/*
 * Pack n sorted keys into buf (setops_packed_bound bytes); returns the
 * packed size.  The keys must be sorted ascending: the caller checks.  Each
 * chunk's width is the one that makes the chunk smallest, patches counted.
 */
extern size_t setops_packed_encode_i32(const int32_t *keys, int64_t n, void *buf);
extern size_t setops_packed_encode_i64(const int64_t *keys, int64_t n, void *buf);

/*
 * Structural check of size untrusted bytes: every count, width, offset,
 * lane offset and patch position, and the total length.  Returns NULL when
 * the value can be decoded without reading or writing out of bounds, or a
 * message saying what is wrong.  Costs O(chunks + patches).
 */
extern const char *setops_packed_check(const void *buf, size_t size);

/*
 * Decode a checked value into out (header n keys).  Returns NULL, or a
 * message when the keys would not be sorted (differences that overflow, or
 * a chunk base below the previous chunk's last key): the bytes were not
 * made by the encoder.
 */
extern const char *setops_packed_decode_i32(const void *buf, int32_t *out);
extern const char *setops_packed_decode_i64(const void *buf, int64_t *out);

/* The same, by the key width the header gives. */
static inline const char *
setops_packed_decode_keys(const void *buf, void *out)
{
	return ((const PackedHeader *) buf)->key_bytes == 8 ?
		setops_packed_decode_i64(buf, (int64_t *) out) :
		setops_packed_decode_i32(buf, (int32_t *) out);
}

#endif							/* SETOPS_PACKED_CODEC_H */
