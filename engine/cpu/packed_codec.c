/*
 * packed_codec.c
 *	  Packed sorted integers on the CPU: encode, check, decode.
 *
 * The format is described in engine/common/packed_format.h.  Words are the key's
 * size (32 or 64 bits), and a lane holds as many rows as a word has bits,
 * so a lane's differences at width w fill exactly w words.
 */
#include <string.h>

#include "packed_codec.h"

/* Bits needed for x, without a branch (gaps of 0 are common and random). */
static inline int
bit_length64(uint64_t x)
{
	return 64 - __builtin_clzll(x | 1) - (x == 0);
}

size_t
setops_packed_bound(int key_bytes, int64_t n)
{
	PackedHeader h;
	PackedLayout lay;

	memset(&h, 0, sizeof(h));
	h.key_bytes = (uint8_t) key_bytes;
	h.n = n;
	h.nchunks = (uint32_t) ((n + PACKED_CHUNK - 1) / PACKED_CHUNK);
	/* the widest chunk: full width, no patches; the encoder never exceeds it */
	h.nwords = (int64_t) h.nchunks * PACKED_CHUNK;
	if (!packed_layout(&h, &lay))
		return 0;
	return lay.total;
}

/* Section pointers of a buffer whose header is filled in. */
#define SECTION(buf, off, type) ((type *) ((char *) (buf) + (off)))

/*
 * DEFINE_PACKED(SFX, KEY, WORD, WB): the codec for keys of type KEY, packed
 * in words of type WORD with WB bits (= rows per lane).
 */
#define DEFINE_PACKED(SFX, KEY, WORD, WB)										\
																				\
size_t																			\
setops_packed_encode_##SFX(const KEY *keys, int64_t n, void *buf)				\
{																				\
	PackedHeader *h = (PackedHeader *) buf;										\
	PackedLayout lay;															\
	int			lanes = (WB) == 32 ? 32 : 16;									\
	WORD		diff[PACKED_CHUNK];												\
	int64_t		nwords = 0,														\
				npatches = 0,													\
				wpos = 0,														\
				ppos = 0;														\
	uint32_t	npatched = 0,													\
				row = 0,														\
				c;																\
	uint8_t    *widths;															\
																				\
	/* the widths' place depends on the chunk count alone */					\
	memset(h, 0, sizeof(*h));													\
	h->version = PACKED_VERSION;												\
	h->key_bytes = sizeof(KEY);													\
	h->n = n;																	\
	h->nchunks = (uint32_t) ((n + PACKED_CHUNK - 1) / PACKED_CHUNK);			\
	if (!packed_layout(h, &lay))												\
		return 0;				/* more keys than the format holds */			\
	widths = SECTION(buf, lay.widths, uint8_t);									\
																				\
	/* Pass 1: each chunk's cheapest width, counting what patches cost. */		\
	for (c = 0; c < h->nchunks; c++)											\
	{																			\
		int64_t		first = (int64_t) c * PACKED_CHUNK;							\
		int			m = n - first < PACKED_CHUNK ? (int) (n - first) : PACKED_CHUNK;	\
		int64_t		count4[4][(WB) + 1],										\
					count[(WB) + 1];											\
		int64_t		best_cost = -1,												\
					above = 0,													\
					best_above = 0;												\
		int			i,															\
					w,															\
					best_w = (WB);												\
																				\
		/* four histograms: no store-to-load chain when widths repeat */		\
		memset(count4, 0, sizeof(count4));										\
		for (i = 1; i < m; i++)													\
			count4[i & 3][bit_length64((uint64_t) ((WORD) keys[first + i] - (WORD) keys[first + i - 1]))]++;	\
		for (w = 0; w <= (WB); w++)												\
			count[w] = count4[0][w] + count4[1][w] + count4[2][w] + count4[3][w];	\
		/* from the widest down; above: differences wider than w */			\
		for (w = (WB); w >= 0; w--)												\
		{																		\
			int64_t		cost;													\
																				\
			if (w < (WB))														\
				above += count[w + 1];											\
			cost = (int64_t) lanes * w * (int64_t) sizeof(WORD) +				\
				(above > 0 ? (lanes + 1) * 4 + above * (2 + (int64_t) sizeof(WORD)) : 0);	\
			if (best_cost < 0 || cost <= best_cost)								\
			{																	\
				best_cost = cost;												\
				best_w = w;														\
				best_above = above;												\
			}																	\
		}																		\
		widths[c] = (uint8_t) best_w;											\
		nwords += (int64_t) lanes * best_w;										\
		npatches += best_above;													\
		npatched += best_above > 0;												\
	}																			\
	h->nwords = nwords;															\
	h->npatches = npatches;														\
	h->npatched_chunks = npatched;												\
	if (!packed_layout(h, &lay))												\
		return 0;																\
	/* zero all but the widths: padding stays canonical, words are OR-ed */	\
	memset((char *) buf + sizeof(PackedHeader), 0, lay.widths - sizeof(PackedHeader));	\
	memset((char *) buf + lay.widths + h->nchunks, 0,							\
		   lay.total - lay.widths - h->nchunks);								\
																				\
	/* Pass 2: bases, offsets, packed words and patches. */						\
	for (c = 0; c < h->nchunks; c++)											\
	{																			\
		KEY		   *bases = SECTION(buf, lay.bases, KEY);						\
		uint32_t   *word_start = SECTION(buf, lay.word_start, uint32_t);		\
		uint32_t   *patch_row = SECTION(buf, lay.patch_row, uint32_t);			\
		uint32_t   *lane_offsets = SECTION(buf, lay.lane_offsets, uint32_t);	\
		uint16_t   *patch_pos = SECTION(buf, lay.patch_pos, uint16_t);			\
		WORD	   *patch_diff = SECTION(buf, lay.patch_diff, WORD);			\
		WORD	   *cw = SECTION(buf, lay.words, WORD) + wpos;					\
		int64_t		first = (int64_t) c * PACKED_CHUNK;							\
		int			m = n - first < PACKED_CHUNK ? (int) (n - first) : PACKED_CHUNK;	\
		int			w = widths[c];												\
		int			has_patches = 0;											\
		int			i,															\
					l,															\
					r;															\
																				\
		bases[c] = keys[first];													\
		word_start[c] = (uint32_t) wpos;										\
		diff[0] = 0;															\
		for (i = 1; i < m; i++)													\
			diff[i] = (WORD) keys[first + i] - (WORD) keys[first + i - 1];		\
		for (; i < PACKED_CHUNK; i++)											\
			diff[i] = 0;														\
		if (w < (WB))															\
		{																		\
			WORD		wide = 0;												\
																				\
			for (i = 1; i < m; i++)												\
				wide |= diff[i] >> w;											\
			has_patches = wide != 0;											\
		}																		\
		patch_row[c] = has_patches ? row : PACKED_NO_PATCHES;					\
		/* patches in lane order, then row (the transposed layout) */			\
		if (has_patches)														\
			for (l = 0; l < lanes; l++)											\
			{																	\
				lane_offsets[row * (lanes + 1) + l] = (uint32_t) ppos;			\
				for (r = 0; r < (WB); r++)										\
				{																\
					int			pos = r * lanes + l;							\
																				\
					if ((diff[pos] >> w) != 0)									\
					{															\
						patch_pos[ppos] = (uint16_t) pos;						\
						patch_diff[ppos] = diff[pos];							\
						ppos++;													\
					}															\
				}																\
			}																	\
		/* row by row: one bit offset for all lanes, a loop that vectorises */	\
		for (r = 0; w > 0 && r < (WB); r++)										\
		{																		\
			int			bit = r * w;											\
			int			sh = bit % (WB);										\
			WORD	   *dst = cw + (bit / (WB)) * lanes;						\
			const WORD *src = diff + r * lanes;									\
			WORD		mask = w == (WB) ? ~(WORD) 0 : (((WORD) 1) << w) - 1;	\
																				\
			for (l = 0; l < lanes; l++)											\
				dst[l] |= (src[l] & mask) << sh;								\
			if (sh + w > (WB))													\
				for (l = 0; l < lanes; l++)										\
					dst[lanes + l] |= (src[l] & mask) >> ((WB) - sh);			\
		}																		\
		if (has_patches)														\
		{																		\
			lane_offsets[row * (lanes + 1) + lanes] = (uint32_t) ppos;			\
			row++;																\
		}																		\
		wpos += (int64_t) lanes * w;											\
	}																			\
	SECTION(buf, lay.word_start, uint32_t)[h->nchunks] = (uint32_t) wpos;		\
	return lay.total;															\
}																				\
																				\
const char *																	\
setops_packed_decode_##SFX(const void *buf, KEY *out)							\
{																				\
	const PackedHeader *h = (const PackedHeader *) buf;							\
	PackedLayout lay;															\
	const KEY  *bases;															\
	const uint8_t *widths;														\
	const uint32_t *word_start,													\
			   *patch_row,														\
			   *lane_offsets;													\
	const WORD *words;															\
	const uint16_t *patch_pos;													\
	const WORD *patch_diff;														\
	int			lanes;															\
	uint32_t	c;																\
	WORD		diff[PACKED_CHUNK];												\
																				\
	if (!packed_layout(h, &lay))												\
		return "counts out of range";											\
	lanes = lay.lanes;															\
	bases = SECTION(buf, lay.bases, const KEY);									\
	widths = SECTION(buf, lay.widths, const uint8_t);							\
	word_start = SECTION(buf, lay.word_start, const uint32_t);					\
	patch_row = SECTION(buf, lay.patch_row, const uint32_t);					\
	lane_offsets = SECTION(buf, lay.lane_offsets, const uint32_t);				\
	words = SECTION(buf, lay.words, const WORD);								\
	patch_pos = SECTION(buf, lay.patch_pos, const uint16_t);					\
	patch_diff = SECTION(buf, lay.patch_diff, const WORD);						\
																				\
	for (c = 0; c < h->nchunks; c++)											\
	{																			\
		int64_t		first = (int64_t) c * PACKED_CHUNK;							\
		int			m = h->n - first < PACKED_CHUNK ? (int) (h->n - first) : PACKED_CHUNK;	\
		const WORD *cw = words + word_start[c];									\
		int			w = widths[c];												\
		int			i,															\
					l,															\
					r;															\
																				\
		WORD		u,															\
					bad = 0;													\
																				\
		/* row by row, as the encoder packed them */							\
		for (r = 0; r < (WB); r++)												\
		{																		\
			int			bit = r * w;											\
			int			sh = bit % (WB);										\
			const WORD *src = cw + (bit / (WB)) * lanes;						\
			WORD	   *dst = diff + r * lanes;									\
			WORD		mask = w == (WB) ? ~(WORD) 0 : (((WORD) 1) << w) - 1;	\
																				\
			if (w == 0)															\
				for (l = 0; l < lanes; l++)										\
					dst[l] = 0;													\
			else if (sh + w > (WB))												\
				for (l = 0; l < lanes; l++)										\
					dst[l] = ((src[l] >> sh) | (src[lanes + l] << ((WB) - sh))) & mask;	\
			else																\
				for (l = 0; l < lanes; l++)										\
					dst[l] = (src[l] >> sh) & mask;								\
		}																		\
		if (patch_row[c] != PACKED_NO_PATCHES)									\
		{																		\
			const uint32_t *lo = lane_offsets + (size_t) patch_row[c] * (lanes + 1);	\
			uint32_t	p;														\
																				\
			for (p = lo[0]; p < lo[lanes]; p++)									\
				diff[patch_pos[p]] = patch_diff[p];								\
		}																		\
		/* the previous chunk's last key must not exceed this base */			\
		if (c > 0 && bases[c] < out[first - 1])									\
			return "chunk bases are not in ascending order";					\
		/*																		\
		 * The prefix sum in the keys' order-preserving unsigned form: a		\
		 * step that wraps around is no ascending step.							\
		 */																		\
		u = (WORD) bases[c] ^ SIGN_##SFX;										\
		out[first] = bases[c];													\
		for (i = 1; i < m; i++)													\
		{																		\
			WORD		next = u + diff[i];										\
																				\
			bad |= next < u;													\
			out[first + i] = (KEY) (next ^ SIGN_##SFX);							\
			u = next;															\
		}																		\
		if (bad)																\
			return "differences overflow the key type";							\
	}																			\
	return NULL;																\
}

#define SIGN_i32 ((uint32_t) 1 << 31)
#define SIGN_i64 ((uint64_t) 1 << 63)

DEFINE_PACKED(i32, int32_t, uint32_t, 32)
DEFINE_PACKED(i64, int64_t, uint64_t, 64)

const char *
setops_packed_check(const void *buf, size_t size)
{
	const PackedHeader *h = (const PackedHeader *) buf;
	PackedLayout lay;
	const uint8_t *widths;
	const uint32_t *word_start,
			   *patch_row,
			   *lane_offsets;
	const uint16_t *patch_pos;
	uint32_t	c,
				rows_seen = 0,
				prev_end = 0;
	int			kbits,
				lanes;

	if (size < sizeof(PackedHeader))
		return "shorter than its header";
	if (h->version != PACKED_VERSION)
		return "unknown format version";
	if (h->reserved != 0)
		return "reserved header bits are set";
	if (!packed_layout(h, &lay))
		return "counts out of range";
	if ((uint64_t) h->nchunks != ((uint64_t) h->n + PACKED_CHUNK - 1) / PACKED_CHUNK)
		return "chunk count does not match the key count";
	if (lay.total != size)
		return "length does not match the counts";
	if (h->nwords > (int64_t) UINT32_MAX || h->npatches > (int64_t) UINT32_MAX)
		return "counts out of range";

	kbits = h->key_bytes * 8;
	lanes = lay.lanes;
	widths = SECTION(buf, lay.widths, const uint8_t);
	word_start = SECTION(buf, lay.word_start, const uint32_t);
	patch_row = SECTION(buf, lay.patch_row, const uint32_t);
	lane_offsets = SECTION(buf, lay.lane_offsets, const uint32_t);
	patch_pos = SECTION(buf, lay.patch_pos, const uint16_t);

	if (word_start[0] != 0)
		return "word offsets do not start at 0";
	for (c = 0; c < h->nchunks; c++)
	{
		if (widths[c] > kbits)
			return "a chunk width exceeds the key size";
		if ((uint64_t) word_start[c + 1] != (uint64_t) word_start[c] + (uint64_t) lanes * widths[c])
			return "word offsets do not match the chunk widths";
		if (patch_row[c] == PACKED_NO_PATCHES)
			continue;
		/* patched chunks take lane_offsets rows in chunk order */
		if (patch_row[c] != rows_seen)
			return "patch rows out of order";
		if (rows_seen >= h->npatched_chunks)
			return "more patched chunks than the header counts";
		{
			const uint32_t *lo = lane_offsets + (size_t) rows_seen * (lanes + 1);
			int			l;

			if (lo[0] != prev_end)
				return "lane offsets do not continue the previous chunk's";
			for (l = 0; l < lanes; l++)
			{
				uint32_t	p;

				if (lo[l + 1] < lo[l] || (int64_t) lo[l + 1] > h->npatches)
					return "lane offsets are not ascending within the patches";
				for (p = lo[l]; p < lo[l + 1]; p++)
				{
					if (patch_pos[p] >= PACKED_CHUNK || patch_pos[p] % lanes != (unsigned) l)
						return "a patch position lies outside its chunk lane";
					if (p > lo[l] && patch_pos[p] <= patch_pos[p - 1])
						return "patch positions are not ascending within a lane";
				}
			}
			prev_end = lo[lanes];
		}
		rows_seen++;
	}
	if ((int64_t) word_start[h->nchunks] != h->nwords)
		return "word count does not match the chunk widths";
	if (rows_seen != h->npatched_chunks)
		return "patched chunk count does not match";
	if ((int64_t) prev_end != h->npatches)
		return "patch count does not match the lane offsets";
	return NULL;
}
