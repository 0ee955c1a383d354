/* The two-level index of where each column's spans start (col_index.c). Private to the bake. */
#ifndef PTL_COL_INDEX_H
#define PTL_COL_INDEX_H

#include <portolan/bake.h>

/* Where each column's spans start in a field whose spans are in column order. A world-sized open
   field has an entry per voxel column of the world, and on large worlds most columns are empty
   (dungeon.obj copied 8x8: 5.2M columns for 1.1M open spans; a uint32 per column was the largest
   array at the bake's peak), so the index has two levels: `base`, the first span of each block of
   PTL_VX_COL_BLOCK columns, and per column the offset of its first span from its block's base in
   `width` bytes: 1 when every offset fits 8 bits, else 2 when they fit 16 (about 1.25 or 2.25
   bytes per column). Width 4 is a plain index: off holds the starts themselves and base is unused
   (a block holding more than 65535 spans, or a tile-sized field, filter.c). Columns 0 .. cols are
   indexed, column `cols` being the end of the spans, so a column's end is the next one's start
   without a test for the last. ptl_filter_col_begin and ptl_filter_col_end read it; col_index.c builds it. */
#define PTL_VX_COL_BLOCK 16u
typedef struct ptl_vx_col_index {
    uint32_t* base;  /* cols / PTL_VX_COL_BLOCK + 1 entries; NULL for a plain index (width 4) */
    union {
        uint8_t* u8;
        uint16_t* u16;
        uint32_t* u32;
        void* any;
    } off;           /* cols + 1 entries of `width` bytes */
    uint32_t cols;   /* columns of the field */
    uint32_t width;  /* bytes per entry of off: 1, 2 or 4 (plain) */
    uint32_t filled; /* entries of off set so far (ptl_col_index_push) */
} ptl_vx_col_index;

/* The start of column c (0 .. cols) in index x, whose width is `width`: a loop that reads the index
   many times can be compiled once per width (a constant here), which spares it the choice of the
   width at every read (the layer flood: 10% of its time on a flat world). */
static inline uint32_t ptl_col_index_at_w(const ptl_vx_col_index* x, uint32_t c, uint32_t width) {
    switch (width) {
    case 1: return x->base[c / PTL_VX_COL_BLOCK] + x->off.u8[c];
    case 2: return x->base[c / PTL_VX_COL_BLOCK] + x->off.u16[c];
    default: return x->off.u32[c];
    }
}
/* The start of column c (0 .. cols) in index x. */
static inline uint32_t ptl_col_index_at(const ptl_vx_col_index* x, uint32_t c) {
    return ptl_col_index_at_w(x, c, x->width);
}
/* For the functions compiled once per width: inlined where the width is a constant. NOINLINE: the
   rare part of a function that is inlined in hot loops, kept out of them. */
#if defined(__GNUC__)
#define PTL_VX_INLINE_ALWAYS inline __attribute__((always_inline))
#define PTL_VX_NOINLINE __attribute__((noinline))
#else
#define PTL_VX_INLINE_ALWAYS inline
#define PTL_VX_NOINLINE
#endif

/* col_index.c. An index for `cols` columns, empty (filled 0): width 1 is the compact index (it
   widens to 2, then 4, when an offset needs it), width 4 the plain one. Entries are pushed in
   column order, cols + 1 of them (the last: the span count). The allocations have exact sizes
   (ptl_col_index_free gives them back with the same). PTL_ERR_NO_MEMORY leaves x empty. */
ptl_status ptl_col_index_init(ptl_vx_col_index* x, uint32_t cols, uint32_t width, const ptl_allocator* a);
void ptl_col_index_free(ptl_vx_col_index* x, const ptl_allocator* a);
/* Pushes an entry that does not fit the current width (the slow path of ptl_col_index_push). */
bool ptl_col_index_push_wide(ptl_vx_col_index* x, uint32_t start, const ptl_allocator* a);
/* Sets the start of the next column (entry `filled`): starts never decrease, and there are at most
   cols + 1 entries. False when widening the index ran out of memory (x is then unchanged and still
   freed by ptl_col_index_free). */
static inline bool ptl_col_index_push(ptl_vx_col_index* x, uint32_t start, const ptl_allocator* a) {
    const uint32_t c = x->filled;
    if (x->width == 4) {
        x->off.u32[c] = start;
    } else {
        if (c % PTL_VX_COL_BLOCK == 0) x->base[c / PTL_VX_COL_BLOCK] = start;
        const uint32_t o = start - x->base[c / PTL_VX_COL_BLOCK];
        if (x->width == 1 && o <= 0xffu) x->off.u8[c] = (uint8_t)o;
        else if (x->width == 2 && o <= 0xffffu) x->off.u16[c] = (uint16_t)o;
        else return ptl_col_index_push_wide(x, start, a);
    }
    x->filled = c + 1;
    return true;
}

#endif
