/*
 * packed_format.h
 *	  Packed sorted integers, format 1: the byte layout shared by the CPU
 *	  codec and the GPU decoder.  No PostgreSQL or CUDA headers.
 *
 * A packed value holds n sorted int32 or int64 keys in chunks of 1024.
 * Within a chunk, key i is stored as the difference from key i - 1 (the
 * chunk's first key is its base, stored apart; its difference is 0).  The
 * differences are bit-packed at a per-chunk width w, in the FastLanes
 * interleaved layout: with L lanes (32 for int32, 16 for int64), key i of
 * the chunk belongs to lane i % L and row i / L; each lane's R = 1024 / L
 * differences fill w words of the key's size, and word j of lane l sits at
 * chunk word j * L + l.  So the lanes of a warp read consecutive words,
 * and each lane unpacks its column alone; the chunk's keys then follow by
 * a prefix sum in key order.
 *
 * A difference that does not fit in w bits is a patch, in the transposed
 * layout of Vortex's PatchedArray (after G-ALP, Hepkema et al.): patches
 * are sorted by chunk, then lane, then row; for each patched chunk and
 * lane, lane_offsets gives the range of its patches, so each lane reaches
 * its own in constant time.  A patch is a u16 position within the chunk
 * and the full difference; the packed field under it holds the low w bits.
 *
 * The last chunk is padded with differences of 0; decoders stop at n.
 *
 * Layout, little-endian, every section starting on an 8-byte boundary:
 *
 *   PackedHeader (its first 4 bytes are PostgreSQL's varlena length)
 *   bases        nchunks keys        each chunk's first key
 *   widths       nchunks uint8       bits per packed difference, 0..key bits
 *   word_start   nchunks + 1 uint32  chunk c's words: [word_start[c], word_start[c + 1]);
 *                                    word_start[c + 1] - word_start[c] = L * widths[c]
 *   patch_row    nchunks uint32      PACKED_NO_PATCHES, or the chunk's row of lane_offsets
 *   lane_offsets npatched_chunks * (L + 1) uint32
 *                                    row r, lane l: patches [lo[r * (L + 1) + l],
 *                                    lo[r * (L + 1) + l + 1]); rows in chunk order
 *   words        nwords words of the key's size
 *   patch_pos    npatches uint16     position within the chunk (< 1024, lane = pos % L)
 *   patch_diff   npatches keys       the full difference (unsigned)
 */
#ifndef SETOPS_PACKED_FORMAT_H
#define SETOPS_PACKED_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define PACKED_VERSION 1
#define PACKED_CHUNK 1024
#define PACKED_NO_PATCHES 0xFFFFFFFFu

typedef struct PackedHeader
{
	int32_t		vl_len_;		/* varlena length, owned by PostgreSQL */
	uint8_t		version;		/* PACKED_VERSION */
	uint8_t		key_bytes;		/* 4 or 8 */
	uint16_t	reserved;		/* 0 */
	int64_t		n;				/* keys */
	int64_t		nwords;			/* packed words, all chunks */
	int64_t		npatches;
	uint32_t	nchunks;		/* ceil(n / 1024) */
	uint32_t	npatched_chunks;
} PackedHeader;

/* Byte offsets of the sections, and the total size. */
typedef struct PackedLayout
{
	int			lanes;			/* L */
	int			rows;			/* R = 1024 / L */
	size_t		bases;
	size_t		widths;
	size_t		word_start;
	size_t		patch_row;
	size_t		lane_offsets;
	size_t		words;
	size_t		patch_pos;
	size_t		patch_diff;
	size_t		total;
} PackedLayout;

#define PACKED_ALIGN8(x) (((size_t) (x) + 7) & ~(size_t) 7)

/*
 * Section offsets for the counts in h.  Returns 0 when the counts are out of
 * range (the computation itself cannot overflow for counts that pass).
 */
static inline int
packed_layout(const PackedHeader *h, PackedLayout *lay)
{
	size_t		kb;

	if (h->key_bytes != 4 && h->key_bytes != 8)
		return 0;
	/* keep every size well inside 2^48 bytes: no overflow below */
	if (h->n < 0 || h->n > ((int64_t) 1 << 40) ||
		h->nwords < 0 || h->nwords > ((int64_t) 1 << 40) ||
		h->npatches < 0 || h->npatches > ((int64_t) 1 << 40) ||
		h->npatched_chunks > h->nchunks)
		return 0;
	kb = h->key_bytes;
	lay->lanes = kb == 4 ? 32 : 16;
	lay->rows = PACKED_CHUNK / lay->lanes;
	lay->bases = PACKED_ALIGN8(sizeof(PackedHeader));
	lay->widths = PACKED_ALIGN8(lay->bases + (size_t) h->nchunks * kb);
	lay->word_start = PACKED_ALIGN8(lay->widths + (size_t) h->nchunks);
	lay->patch_row = PACKED_ALIGN8(lay->word_start + ((size_t) h->nchunks + 1) * 4);
	lay->lane_offsets = PACKED_ALIGN8(lay->patch_row + (size_t) h->nchunks * 4);
	lay->words = PACKED_ALIGN8(lay->lane_offsets +
							   (size_t) h->npatched_chunks * (lay->lanes + 1) * 4);
	lay->patch_pos = PACKED_ALIGN8(lay->words + (size_t) h->nwords * kb);
	lay->patch_diff = PACKED_ALIGN8(lay->patch_pos + (size_t) h->npatches * 2);
	lay->total = PACKED_ALIGN8(lay->patch_diff + (size_t) h->npatches * kb);
	return 1;
}

#endif							/* SETOPS_PACKED_FORMAT_H */
